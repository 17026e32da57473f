package dev.proxima.proxy.status;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The samples of a Prometheus text exposition, as much as {@code status} needs: metric name, labels
 * and value per line. Comments, timestamps and lines it cannot read are skipped. Pure.
 */
public final class MetricsText {

  public record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;
  private final Set<String> declared;

  private MetricsText(List<Sample> samples, Set<String> declared) {
    this.samples = List.copyOf(samples);
    this.declared = Set.copyOf(declared);
  }

  public static MetricsText parse(String text) {
    var samples = new ArrayList<Sample>();
    var declared = new HashSet<String>();
    for (var line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        var parts = line.substring(7).strip().split("\\s+");
        declared.add(parts[0]);
        continue;
      }
      var sample = sample(line.strip());
      if (sample != null) {
        samples.add(sample);
      }
    }
    return new MetricsText(samples, declared);
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

  private static Sample sample(String line) {
    if (line.isEmpty() || line.startsWith("#")) {
      return null;
    }
    int brace = line.indexOf('{');
    int space = line.indexOf(' ');
    if (space < 0) {
      return null;
    }
    String name;
    var labels = new LinkedHashMap<String, String>();
    String rest;
    if (brace >= 0 && brace < space) {
      name = line.substring(0, brace);
      int close = line.lastIndexOf('}');
      if (close < brace) {
        return null;
      }
      labels(line.substring(brace + 1, close), labels);
      rest = line.substring(close + 1).strip();
    } else {
      name = line.substring(0, space);
      rest = line.substring(space + 1).strip();
    }
    var value = rest.split("\\s+")[0];
    try {
      return new Sample(name, labels, Double.parseDouble(value));
    } catch (NumberFormatException notANumber) {
      return null;
    }
  }

  /** {@code a="x",b="y"}, with backslash escapes inside the quotes. */
  private static void labels(String text, Map<String, String> into) {
    int i = 0;
    while (i < text.length()) {
      int equals = text.indexOf('=', i);
      if (equals < 0 || equals + 1 >= text.length() || text.charAt(equals + 1) != '"') {
        return;
      }
      var key = text.substring(i, equals).strip();
      var value = new StringBuilder();
      int j = equals + 2;
      for (; j < text.length() && text.charAt(j) != '"'; j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          char next = text.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      into.put(key, value.toString());
      i = j + 1;
      while (i < text.length() && (text.charAt(i) == ',' || text.charAt(i) == ' ')) {
        i++;
      }
    }
  }
}
