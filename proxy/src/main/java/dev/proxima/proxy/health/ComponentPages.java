package dev.proxima.proxy.health;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plain-text z-pages kube-proxy serves since Kubernetes 1.36: {@code /statusz} (what runs,
 * since when, which other paths there are) and {@code /flagz} (the options it was started with).
 * For people, not for parsers: the first lines say so, as upstream's do.
 */
public final class ComponentPages {
  static final String WARNING =
      "Warning: This endpoint is not meant to be machine parseable, has no formatting"
          + " compatibility guarantees and is for debugging purposes only.";

  private static final DateTimeFormatter STARTED =
      DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss 'UTC' yyyy", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private ComponentPages() {}

  /**
   * {@code paths}: the other read-only paths served; each untuned sysctl {@code name=wanted value}.
   */
  public static String statusz(
      String component,
      Instant started,
      Instant now,
      String version,
      List<String> paths,
      List<String> untunedSysctls) {
    var up = Duration.between(started, now);
    if (up.isNegative()) {
      up = Duration.ZERO;
    }
    return component
        + " statusz\n"
        + WARNING
        + "\n\n"
        + "Started: "
        + STARTED.format(started)
        + "\n"
        + String.format(
            Locale.ROOT,
            "Up: %d hr %02d min %02d sec%n",
            up.toHours(),
            up.toMinutesPart(),
            up.toSecondsPart())
        + "Java version: "
        + Runtime.version()
        + "\n"
        + "Binary version: "
        + version
        + "\n"
        + "Paths: "
        + String.join(" ", paths)
        + "\n"
        + (untunedSysctls.isEmpty()
            ? ""
            : "Sysctls not set (set them on the node): " + String.join(" ", untunedSysctls) + "\n");
  }

  /** Each option's name without dashes and its value, given or default. */
  public static String flagz(String component, Map<String, String> flags) {
    var out = new StringBuilder(component).append(" flags\n").append(WARNING).append("\n\n");
    new TreeMap<>(flags)
        .forEach(
            (name, value) ->
                out.append(name).append('=').append(value.replace('\n', ' ')).append('\n'));
    return out.toString();
  }
}
