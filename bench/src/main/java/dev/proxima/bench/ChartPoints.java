package dev.proxima.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Picks the charted figures out of a run's rows: the time to program a new node (a cold full sync
 * into an empty namespace), a partial sync, and peak memory, each at the cluster shape it was
 * measured at. Rows are recognised by what they measure, not by their number, so a row renamed
 * around its measurement keeps its point.
 */
final class ChartPoints {
  static final String NEW_NODE = "new-node";
  static final String PARTIAL_SYNC = "partial-sync";
  static final String MEMORY = "memory";

  private static final Pattern SCALE = Pattern.compile("^(\\d+) svc × (\\d+) ep$");
  private static final Pattern FIGURE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?) (ms|s|MiB)\\b");
  private static final Pattern SPREAD =
      Pattern.compile("min–max ([0-9.]+ (?:ms|s))–([0-9.]+ (?:ms|s))");
  private static final Pattern PEAK = Pattern.compile("peak ([0-9.]+ MiB)");

  private record Kind(String chart, String series, String... phrases) {
    boolean matches(String benchmark) {
      for (var phrase : phrases) {
        if (benchmark.contains(phrase)) {
          return true;
        }
      }
      return false;
    }
  }

  private static final List<Kind> KINDS =
      List.of(
          new Kind(NEW_NODE, "Proxima nftables", "proxy start → rules in an empty namespace"),
          new Kind(NEW_NODE, "Proxima iptables", "iptables mode: cold full sync vs bare"),
          new Kind(PARTIAL_SYNC, "Proxima nftables", "endpoint changed → rule in kernel"),
          new Kind(PARTIAL_SYNC, "Proxima iptables", "iptables mode: partial sync, change → sync"),
          new Kind(MEMORY, "Proxima proxy", "proxy rss after the first sync", "proxy rss peak"),
          new Kind(
              MEMORY,
              "Proxima controller",
              "controller rss after writing every hint",
              "controller rss peak"));

  private ChartPoints() {}

  static List<ChartPoint> from(List<Row> rows) {
    var points = new ArrayList<ChartPoint>();
    for (var row : rows) {
      var shape = SCALE.matcher(row.scale().trim());
      if (!shape.matches() || !List.of("PASS", "MISS", "REPORT").contains(row.verdict())) {
        continue;
      }
      var benchmark = row.benchmark().toLowerCase(Locale.ROOT);
      for (var kind : KINDS) {
        if (!kind.matches(benchmark)) {
          continue;
        }
        var point = point(kind, row, shape);
        if (point != null) {
          points.add(point);
        }
        break;
      }
    }
    return points;
  }

  private static ChartPoint point(Kind kind, Row row, Matcher shape) {
    int services = Integer.parseInt(shape.group(1));
    int endpoints = Integer.parseInt(shape.group(2));
    var peak = PEAK.matcher(row.benchmark());
    // Memory is charted as the peak, the figure a limit has to hold.
    var figure = kind.chart().equals(MEMORY) && peak.find() ? peak.group(1) : row.result().trim();
    double value = parse(figure);
    if (Double.isNaN(value)) {
      return null;
    }
    double low = value;
    double high = value;
    var spread = SPREAD.matcher(row.benchmark());
    if (spread.find()) {
      low = Math.min(value, parse(spread.group(1)));
      high = Math.max(value, parse(spread.group(2)));
    }
    return new ChartPoint(kind.chart(), kind.series(), services, endpoints, value, low, high, "-");
  }

  /** Milliseconds for a time, MiB for memory, NaN when the text holds no figure. */
  static double parse(String text) {
    var m = FIGURE.matcher(text);
    if (!m.find()) {
      return Double.NaN;
    }
    double number = Double.parseDouble(m.group(1));
    return m.group(2).equals("s") ? number * 1000 : number;
  }
}
