package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One point of a performance chart: a figure measured (or reported elsewhere) at one cluster shape,
 * with its spread. The results files under {@code bench/results/} hold one per line, tab-separated,
 * in the order of {@link #HEADER}.
 *
 * @param chart which chart: {@code new-node}, {@code partial-sync} or {@code memory}
 * @param series who and in which mode, e.g. {@code Proxima nftables}
 * @param services Services in the cluster
 * @param endpointsPerService endpoints behind each Service
 * @param value the figure: milliseconds for the time charts, MiB for memory
 * @param low the lowest of the repetitions (the value itself when there was one)
 * @param high the highest of the repetitions
 * @param source where a figure reported elsewhere comes from, or "-" for the harness's own
 */
record ChartPoint(
    String chart,
    String series,
    int services,
    int endpointsPerService,
    double value,
    double low,
    double high,
    String source) {

  static final String HEADER =
      "# chart\tseries\tservices\tendpoints_per_service\tvalue\tlow\thigh\tsource";

  /** The chart's x: every endpoint of the cluster, the size the ruleset grows with. */
  long endpoints() {
    return (long) services * endpointsPerService;
  }

  /** "10k × 2": the shape, as the charts label a point. */
  String shape() {
    return count(services) + " × " + count(endpointsPerService);
  }

  boolean reported() {
    return !source.equals("-");
  }

  private static String count(int n) {
    if (n >= 1000 && n % 1000 == 0) {
      return n / 1000 + "k";
    }
    if (n >= 1000) {
      return String.format(Locale.ROOT, "%.1fk", n / 1000.0);
    }
    return Integer.toString(n);
  }

  String tsv() {
    return String.join(
        "\t",
        chart,
        series,
        Integer.toString(services),
        Integer.toString(endpointsPerService),
        number(value),
        number(low),
        number(high),
        source);
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static ChartPoint parse(String line) {
    var f = line.split("\t", -1);
    if (f.length != 8) {
      throw new IllegalArgumentException("expected 8 tab-separated fields: " + line);
    }
    return new ChartPoint(
        f[0],
        f[1],
        Integer.parseInt(f[2]),
        Integer.parseInt(f[3]),
        Double.parseDouble(f[4]),
        Double.parseDouble(f[5]),
        Double.parseDouble(f[6]),
        f[7]);
  }

  /** Every point of a results file; lines starting with # and blank lines are left out. */
  static List<ChartPoint> read(Path file) throws IOException {
    var points = new ArrayList<ChartPoint>();
    if (!Files.exists(file)) {
      return points;
    }
    for (var line : Files.readAllLines(file)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        points.add(parse(line));
      }
    }
    return points;
  }

  static void write(Path file, String comment, List<ChartPoint> points) throws IOException {
    var out = new StringBuilder();
    out.append("# ").append(comment).append('\n').append(HEADER).append('\n');
    points.forEach(p -> out.append(p.tsv()).append('\n'));
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, out);
  }
}
