package dev.proxima.proxy.model;

import java.util.Locale;

/**
 * Which Services get per-Service locality counters: those annotated {@code
 * proxima.dev/observe-locality: "true"}, or all of them (still under the series cap).
 */
public enum ObserveLocality {
  ANNOTATED,
  ALL;

  /** Parses {@code annotated} or {@code all}, ignoring case. */
  public static ObserveLocality parse(String value) {
    for (ObserveLocality mode : values()) {
      if (mode.name().equalsIgnoreCase(value == null ? "" : value.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "observe-locality must be annotated or all, not \"" + value + "\"");
  }

  /** The flag value: annotated or all. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
