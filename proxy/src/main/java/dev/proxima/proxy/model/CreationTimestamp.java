package dev.proxima.proxy.model;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Reads a Service's {@code metadata.creationTimestamp}. Each plan reads every Service's, and the
 * JDK's general ISO formatter made over a dozen objects for each; the API server writes it in one
 * form, UTC to the second ({@code 2026-11-28T20:26:10Z}), which is read here digit by digit. Any
 * other form, or a value outside the calendar, goes to {@link Instant#parse}, so the result is
 * always the one {@code Instant.parse} gives.
 */
public final class CreationTimestamp {
  private static final int API_SERVER_FORM_LENGTH = "2026-11-28T20:26:10Z".length();

  private CreationTimestamp() {}

  /** The instant, or null when {@code text} is null or not a timestamp. */
  public static Instant parse(String text) {
    if (text == null) {
      return null;
    }
    var fast = inApiServerForm(text);
    if (fast != null) {
      return fast;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException unreadable) {
      return null;
    }
  }

  private static Instant inApiServerForm(String text) {
    if (text.length() != API_SERVER_FORM_LENGTH
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':'
        || text.charAt(19) != 'Z') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    if (year < 0
        || hour < 0
        || hour > 23
        || minute < 0
        || minute > 59
        || second < 0
        || second > 59) {
      return null;
    }
    long epochDay;
    try {
      epochDay = LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException outsideTheCalendar) {
      return null; // a month or day out of range, or not digits: Instant.parse says what it is
    }
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second);
  }

  private static int digits(String text, int from, int to) {
    return AsciiNumber.parse(text, from, to, 10, to - from);
  }
}
