package dev.proxima.proxy.model;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Reads a Service's {@code metadata.creationTimestamp}, which is untrusted text. */
public final class CreationTimestamp {
  private CreationTimestamp() {}

  /** The instant, or null when {@code text} is null or not a timestamp. */
  public static Instant parse(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException unreadable) {
      return null;
    }
  }
}
