package dev.proxima.proxy.status;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of a Prometheus text exposition, as much as {@code status} needs: metric name, labels
 * and value per line. Comments, timestamps and lines it cannot read are skipped. Pure.
 *
 * @param declared the names of the {@code # TYPE} lines
 */
public record MetricsText(List<Sample> samples, Set<String> declared) {
  /** The name, the labels up to the line's last brace, the value; a timestamp may follow. */
  private static final Pattern SAMPLE = Pattern.compile("([^{\\s]+)(?:\\{(.*)})? +(\\S+).*");

  /** {@code a="x"}, with backslash escapes inside the quotes. */
  private static final Pattern LABEL =
      Pattern.compile("([^=,\\s]+)\\s*=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static final Pattern ESCAPE = Pattern.compile("\\\\(.)");

  public record Sample(String name, Map<String, String> labels, double value) {}

  public static MetricsText parse(String text) {
    var samples = new ArrayList<Sample>();
    var declared = new HashSet<String>();
    for (var line : text.split("\n")) {
      var sample = SAMPLE.matcher(line.strip());
      if (line.startsWith("# TYPE ")) {
        declared.add(line.substring(7).strip().split("\\s+")[0]);
      } else if (!line.strip().startsWith("#") && sample.matches()) {
        var labels = new LinkedHashMap<String, String>();
        var label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
        while (label.find()) {
          labels.put(
              label.group(1), ESCAPE.matcher(label.group(2)).replaceAll(MetricsText::unescape));
        }
        try {
          samples.add(new Sample(sample.group(1), labels, Double.parseDouble(sample.group(3))));
        } catch (NumberFormatException notANumber) {
          // Not a sample.
        }
      }
    }
    return new MetricsText(samples, declared);
  }

  private static String unescape(MatchResult escape) {
    return Matcher.quoteReplacement(escape.group(1).equals("n") ? "\n" : escape.group(1));
  }

  /**
   * Whether {@code name} is exposed: a sample, or only its {@code # TYPE} line (a labelled counter
   * nothing has counted yet; a counter's TYPE line names it without {@code _total}).
   */
  public boolean has(String name) {
    return declared.contains(name)
        || declared.contains(name.replaceFirst("_total$", ""))
        || samples.stream().anyMatch(s -> s.name().equals(name));
  }

  public double sum(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).mapToDouble(Sample::value).sum();
  }

  public double sum(String name, String label, String value) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && value.equals(s.labels().get(label)))
        .mapToDouble(Sample::value)
        .sum();
  }

  /** NaN when there is none. */
  public double max(String name) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .mapToDouble(Sample::value)
        .max()
        .orElse(Double.NaN);
  }

  public String label(String name, String label) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .map(s -> s.labels().get(label))
        .findFirst()
        .orElse(null);
  }
}
