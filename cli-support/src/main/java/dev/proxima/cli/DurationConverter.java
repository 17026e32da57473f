package dev.proxima.cli;

import java.time.Duration;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations the way Kubernetes flags spell them: {@code 500ms}, {@code 30s}, {@code 10m},
 * {@code 1h}.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern SPELLING = Pattern.compile("(\\d+)(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    var match = SPELLING.matcher(value.trim());
    if (!match.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; use a whole number with ms, s, m or h, e.g. 30s");
    }
    long amount = Long.parseLong(match.group(1));
    return switch (match.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }
}
