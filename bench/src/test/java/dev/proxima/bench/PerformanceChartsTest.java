package dev.proxima.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class PerformanceChartsTest {
  private static final List<Row> ROWS =
      List.of(
          Row.check(
              "Cold full sync: proxy start → rules in an empty namespace (median of 3, min–max"
                  + " 1.57 s–1.68 s)",
              "10000 svc × 2 ep",
              "1.64 s",
              "-",
              "-",
              "≤ 2 s",
              true),
          Row.check(
              "Partial sync: one Service's endpoint changed → rule in kernel (median of 20;"
                  + " min–max 5.0 ms–24.0 ms; from the write request: 18.0 ms)",
              "1000 svc × 2 ep",
              "8.0 ms",
              "nft -f of the delta 20.5 ms",
              "0.39×",
              "≤ 50 ms and ≤ 3×",
              true),
          Row.check(
              "iptables mode: partial sync, change → sync finished (median of 40)",
              "10000 svc × 2 ep",
              "83.0 ms",
              "-",
              "-",
              "≤ 50 ms",
              false),
          Row.check(
              "Proxy RSS after the first sync (the manifest's JVM flags; peak 240 MiB; of the RSS"
                  + " 26 MiB file-backed)",
              "10000 svc × 10 ep",
              "233 MiB",
              "-",
              "-",
              "peak ≤ 256 MiB",
              true),
          // Not charted: a ratio between two sizes, a cost comparison, a skipped row.
          Row.check(
              "Partial sync flat in cluster size",
              "10000 vs 1000 svc",
              "8.0 ms",
              "1000 svc: 8.0 ms",
              "1.00×",
              "≤ 2×",
              true),
          Row.check(
              "Proxy peak RSS with locality counting on for every Service port vs off",
              "10000 svc × 2 ep",
              "209 MiB",
              "off: 201 MiB",
              "1.04×",
              "≤ 1.1×",
              true),
          Row.check(
              "Extreme: restart with rules present, proxy start → rules in (median of 3, min–max"
                  + " 5.10 s–5.90 s)",
              "44000 svc × 1 ep",
              "5.50 s",
              "cold start 6.03 s",
              "0.91×",
              "≤ the cold start; no whole read-back",
              true),
          Row.check(
              "Extreme: cold full sync, proxy start → rules in an empty namespace (median of 3,"
                  + " min–max 5.27 s–6.06 s; 44,000 Services)",
              "44000 svc × 1 ep",
              "6.03 s",
              "-",
              "-",
              "≤ 10 s",
              true),
          Row.skipped(
              "Extreme: partial sync, one endpoint changed → rule in kernel",
              "44000 svc × 1 ep",
              "not root"));

  @Test
  void theChartedRowsBecomePointsWithTheirShapeAndSpread() {
    assertThat(ChartPoints.from(ROWS))
        .containsExactly(
            new ChartPoint("new-node", "Proxima nftables", 10000, 2, 1640, 1570, 1680, "-"),
            new ChartPoint("partial-sync", "Proxima nftables", 1000, 2, 8, 5, 24, "-"),
            new ChartPoint("partial-sync", "Proxima iptables", 10000, 2, 83, 83, 83, "-"),
            new ChartPoint("memory", "Proxima proxy", 10000, 10, 240, 240, 240, "-"),
            new ChartPoint("new-node", "Proxima nftables", 44000, 1, 6030, 5270, 6060, "-"));
  }

  @Test
  void aPointMeasuredAgainReplacesTheOldOneAndOthersStay() {
    var old =
        List.of(
            new ChartPoint("new-node", "Proxima nftables", 10000, 2, 2000, 1900, 2100, "-"),
            new ChartPoint("memory", "Proxima proxy", 44000, 1, 356, 356, 356, "-"));
    var measured = new ChartPoint("new-node", "Proxima nftables", 10000, 2, 1640, 1570, 1680, "-");

    assertThat(PerformanceCharts.merge(old, List.of(measured)))
        .containsExactly(measured, old.get(1));
  }

  @Test
  void aResultsFileReadsBackAsWritten(@TempDir Path dir) throws Exception {
    var points =
        List.of(
            new ChartPoint("partial-sync", "Proxima nftables", 44000, 1, 11.5, 8, 26, "-"),
            new ChartPoint(
                "memory", "kube-proxy nftables (reported)", 10000, 2, 260, 260, 260, "a PR"));
    var file = dir.resolve("results/latest.tsv");

    ChartPoint.write(file, "test", points);

    assertThat(ChartPoint.read(file)).isEqualTo(points);
  }

  @Test
  void aChartIsWellFormedSvgWithOneMarkerPerPointAndReportedFiguresMarkedApart() throws Exception {
    var measured =
        List.of(
            new ChartPoint("new-node", "Proxima nftables", 10000, 2, 1640, 1570, 1680, "-"),
            new ChartPoint("new-node", "Proxima nftables", 44000, 1, 6030, 5270, 6060, "-"));
    var reported =
        List.of(
            new ChartPoint(
                "new-node",
                "kube-proxy <nftables> & co",
                44125,
                1,
                1004000,
                1004000,
                1004000,
                "x"));

    var svg =
        SvgChart.render(
            "Time to program a new node",
            new SvgChart.Axis("endpoints", true, SvgChart::count),
            new SvgChart.Axis("time", true, SvgChart::duration),
            List.of(
                new SvgChart.Series("Proxima nftables", false, measured),
                new SvgChart.Series("kube-proxy <nftables> & co", true, reported)));

    Document document = parse(svg);
    // Two measured points and the legend's marker; the reported point and its legend marker.
    assertThat(document.getElementsByTagName("circle").getLength()).isEqualTo(3);
    assertThat(rects(document, "white", true)).isEqualTo(2);
    assertThat(svg)
        .contains(">kube-proxy &lt;nftables&gt; &amp; co<")
        .contains(">10k × 2<")
        .contains(">44k × 1<")
        .contains("reported elsewhere, not measured here");
    // Spread bars: a vertical line and two caps for each measured point, none for a single figure.
    assertThat(document.getElementsByTagName("line").getLength()).isEqualTo(ticks(svg) + 2 * 3);
  }

  @Test
  void aLogAxisSpansWholeDecadesUpToARoundTopAndReadsInReadersUnits() {
    double[] range = SvgChart.range(List.of(1640.0, 1_004_000.0), true);

    assertThat(range).containsExactly(1000.0, 2_000_000.0);
    assertThat(SvgChart.ticks(range, true))
        .containsExactly(1000.0, 10_000.0, 100_000.0, 1_000_000.0, 2_000_000.0);
    assertThat(SvgChart.duration(500)).isEqualTo("500 ms");
    assertThat(SvgChart.duration(2000)).isEqualTo("2 s");
    assertThat(SvgChart.count(250_000)).isEqualTo("250k");
  }

  @Test
  void theCommittedChartsAreTheOnesTheResultsFilesDraw() throws Exception {
    var root = Path.of("..");
    var points = new java.util.ArrayList<>(ChartPoint.read(root.resolve(PerformanceCharts.LATEST)));
    points.addAll(ChartPoint.read(root.resolve(PerformanceCharts.REPORTED)));
    assertThat(points).isNotEmpty();

    for (var chart : PerformanceCharts.charts(points).entrySet()) {
      var committed = root.resolve(PerformanceCharts.IMAGES).resolve(chart.getKey());
      assertThat(Files.readString(committed))
          .as("%s is stale: run ./bench.sh --charts", committed)
          .isEqualTo(chart.getValue());
    }
  }

  /** Which rows of the page's table each charted series is stated in. */
  private static final java.util.Map<String, String> ROW_LABELS =
      java.util.Map.of(
          "new-node/Proxima nftables", "New node, nftables",
          "new-node/Proxima iptables", "New node, iptables mode",
          "partial-sync/Proxima nftables", "Partial sync, nftables",
          "partial-sync/Proxima iptables", "Partial sync, iptables mode",
          "memory/Proxima proxy", "Proxy peak memory",
          "memory/Proxima controller", "Controller peak memory");

  @Test
  void thePerformancePageStatesExactlyTheChartedFiguresWithTheirSpread() throws Exception {
    var root = Path.of("..");
    var measured = ChartPoint.read(root.resolve(PerformanceCharts.LATEST));
    var rows = new java.util.ArrayList<List<String>>();
    for (var line : Files.readAllLines(root.resolve("docs/performance.md"))) {
      if (line.startsWith("| ")) {
        var cells =
            java.util.Arrays.stream(line.substring(1).split("\\|")).map(String::trim).toList();
        if (ROW_LABELS.values().stream().anyMatch(label -> cells.get(0).startsWith(label))) {
          rows.add(cells);
        }
      }
    }
    var stated = new java.util.ArrayList<String>();
    for (var row : rows) {
      var label = ROW_LABELS.values().stream().filter(l -> row.get(0).startsWith(l)).findFirst();
      stated.add(label.orElseThrow() + " | " + row.get(1) + " | " + row.get(2));
    }
    var charted = new java.util.ArrayList<String>();
    for (var p : measured) {
      var label = ROW_LABELS.get(p.chart() + "/" + p.series());
      assertThat(label).as("a row label for %s", p).isNotNull();
      charted.add(label + " | " + shape(p) + " | " + figure(p.value(), p.chart()));
      if (p.high() > p.low()) {
        var row =
            rows.stream()
                .filter(r -> r.get(0).startsWith(label) && r.get(1).equals(shape(p)))
                .findFirst()
                .orElseThrow();
        assertThat(row.get(3)).as("the spread of %s", p).startsWith(spread(p.low(), p.high()));
      }
    }
    assertThat(stated)
        .as("docs/performance.md's table against %s", PerformanceCharts.LATEST)
        .containsExactlyInAnyOrderElementsOf(charted);
  }

  private static String shape(ChartPoint p) {
    return String.format(java.util.Locale.ROOT, "%,d × %,d", p.services(), p.endpointsPerService());
  }

  private static String figure(double value, String chart) {
    if (chart.equals(ChartPoints.MEMORY)) {
      return String.format(java.util.Locale.ROOT, "%.0f MiB", value);
    }
    return value >= 1000
        ? String.format(java.util.Locale.ROOT, "%.2f s", value / 1000)
        : String.format(java.util.Locale.ROOT, "%.0f ms", value);
  }

  private static String spread(double low, double high) {
    return high >= 1000
        ? String.format(java.util.Locale.ROOT, "%.2f–%.2f s", low / 1000, high / 1000)
        : String.format(java.util.Locale.ROOT, "%.0f–%.0f ms", low, high);
  }

  private static int ticks(String svg) {
    return (int) svg.lines().filter(l -> l.contains("stroke=\"#e0e0e0\"")).count() + 2;
  }

  private static int rects(Document document, String fill, boolean stroked) {
    var rects = document.getElementsByTagName("rect");
    int n = 0;
    for (int i = 0; i < rects.getLength(); i++) {
      var rect = (Element) rects.item(i);
      if (rect.getAttribute("fill").equals(fill) && rect.hasAttribute("stroke") == stroked) {
        n++;
      }
    }
    return n;
  }

  private static Document parse(String svg) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }
}
