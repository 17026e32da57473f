package dev.proxima.proxy.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Durations as Kubernetes configuration files spell them (Go's {@code time.Duration} text): a
 * sequence of decimal numbers with units, e.g. {@code 30s}, {@code 1m0s}, {@code 1.5h}, {@code
 * 500ms}, or a bare {@code 0}.
 */
public final class GoDuration {
  private static final Pattern PART =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  private GoDuration() {}

  public static Duration parse(String text) {
    var value = text.trim();
    if (value.equals("0")) {
      return Duration.ZERO;
    }
    boolean negative = value.startsWith("-");
    if (negative || value.startsWith("+")) {
      value = value.substring(1);
    }
    var parts = PART.matcher(value);
    long nanos = 0;
    int end = 0;
    while (parts.find() && parts.start() == end) {
      var amount =
          new BigDecimal(parts.group(1).startsWith(".") ? "0" + parts.group(1) : parts.group(1));
      nanos += amount.multiply(BigDecimal.valueOf(unitNanos(parts.group(2)))).longValue();
      end = parts.end();
    }
    if (end == 0 || end != value.length()) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not a duration (e.g. 30s, 1m0s, 500ms)");
    }
    return Duration.ofNanos(negative ? -nanos : nanos);
  }

  private static long unitNanos(String unit) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      default -> 3_600_000_000_000L;
    };
  }
}
