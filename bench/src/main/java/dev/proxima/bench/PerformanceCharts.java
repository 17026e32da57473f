package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The charts of docs/performance.md. A full-size run merges its charted figures into {@code
 * bench/results/latest.tsv} (a point measured again replaces the old one; points this run did not
 * measure stay) and redraws the three SVGs in {@code docs/images/} from it and from the upstream
 * figures in {@code bench/results/kube-proxy-reported.tsv}, which no run writes. A smoke or quick
 * run writes its points and charts to its work directory instead, so small-scale figures never
 * replace the committed ones.
 *
 * <p>{@code java -cp bench/target/proxima-bench.jar dev.proxima.bench.PerformanceCharts [root]}
 * redraws the charts from the results files without measuring anything ({@code ./bench.sh
 * --charts}).
 */
final class PerformanceCharts {
  static final Path LATEST = Path.of("bench", "results", "latest.tsv");
  static final Path REPORTED = Path.of("bench", "results", "kube-proxy-reported.tsv");
  static final Path IMAGES = Path.of("docs", "images");

  private PerformanceCharts() {}

  public static void main(String[] args) throws IOException {
    var root = Path.of(args.length > 0 ? args[0] : ".");
    redraw(root.resolve(LATEST), root.resolve(REPORTED), root.resolve(IMAGES));
    System.err.println("bench: charts redrawn in " + root.resolve(IMAGES));
  }

  /** After a run: merges the run's points into the results file and redraws the charts. */
  static void update(List<Row> rows, Path root, Path work, boolean smallScale) throws IOException {
    var measured = ChartPoints.from(rows);
    if (measured.isEmpty()) {
      return;
    }
    Path results = smallScale ? work.resolve("latest.tsv") : root.resolve(LATEST);
    Path images = smallScale ? work.resolve("images") : root.resolve(IMAGES);
    var merged = merge(ChartPoint.read(results), measured);
    ChartPoint.write(
        results,
        "Written by ./bench.sh (PerformanceCharts): the charted figures of the latest run at each"
            + " shape. Times in ms, memory in MiB.",
        merged);
    redraw(results, root.resolve(REPORTED), images);
    System.err.println("bench: charts written to " + images);
  }

  /** The old points with every point measured again replaced by the new figure. */
  static List<ChartPoint> merge(List<ChartPoint> old, List<ChartPoint> measured) {
    var byKey = new LinkedHashMap<String, ChartPoint>();
    for (var point : old) {
      byKey.put(key(point), point);
    }
    for (var point : measured) {
      byKey.put(key(point), point);
    }
    return new ArrayList<>(byKey.values());
  }

  private static String key(ChartPoint p) {
    return p.chart() + "/" + p.series() + "/" + p.services() + "x" + p.endpointsPerService();
  }

  static void redraw(Path results, Path reported, Path images) throws IOException {
    var points = new ArrayList<>(ChartPoint.read(results));
    points.addAll(ChartPoint.read(reported));
    Files.createDirectories(images);
    for (var chart : charts(points).entrySet()) {
      Files.writeString(images.resolve(chart.getKey()), chart.getValue());
    }
  }

  /** File name to SVG document, one per chart. */
  static Map<String, String> charts(List<ChartPoint> points) {
    var x = new SvgChart.Axis("endpoints in the cluster (log scale)", true, SvgChart::count);
    var charts = new LinkedHashMap<String, String>();
    charts.put(
        "perf-new-node.svg",
        SvgChart.render(
            "Time to program a new node (full sync into an empty node)",
            x,
            new SvgChart.Axis("proxy start → every rule in the kernel", true, SvgChart::duration),
            series(points, ChartPoints.NEW_NODE)));
    charts.put(
        "perf-partial-sync.svg",
        SvgChart.render(
            "Partial sync: one endpoint changed → rule in the kernel",
            x,
            new SvgChart.Axis("time (log scale)", true, SvgChart::duration),
            series(points, ChartPoints.PARTIAL_SYNC)));
    charts.put(
        "perf-memory.svg",
        SvgChart.render(
            "Peak memory (resident set) against cluster size",
            x,
            new SvgChart.Axis("peak RSS", false, SvgChart::mebibytes),
            series(points, ChartPoints.MEMORY)));
    return charts;
  }

  /** The chart's series in file order, measured first, then those reported elsewhere. */
  private static List<SvgChart.Series> series(List<ChartPoint> points, String chart) {
    var measured = new LinkedHashMap<String, List<ChartPoint>>();
    var reported = new LinkedHashMap<String, List<ChartPoint>>();
    for (var p : points) {
      if (p.chart().equals(chart)) {
        (p.reported() ? reported : measured)
            .computeIfAbsent(p.series(), s -> new ArrayList<>())
            .add(p);
      }
    }
    var series = new ArrayList<SvgChart.Series>();
    measured.forEach((name, list) -> series.add(new SvgChart.Series(name, false, list)));
    reported.forEach((name, list) -> series.add(new SvgChart.Series(name, true, list)));
    return series;
  }
}
