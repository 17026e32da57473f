package dev.proxima.bench;

/**
 * One line of the results table.
 *
 * @param baseline what the result is compared with, measured in the same run ("-" for absolute
 *     bounds)
 * @param ratio result over baseline, or "-"
 * @param verdict PASS or MISS against the target; REPORT where only the figure is wanted; PENDING
 *     where the thing measured does not exist yet; SKIPPED where this machine cannot run it
 */
record Row(
    String benchmark,
    String scale,
    String result,
    String baseline,
    String ratio,
    String target,
    String verdict) {

  static Row check(
      String benchmark,
      String scale,
      String result,
      String baseline,
      String ratio,
      String target,
      boolean pass) {
    return new Row(benchmark, scale, result, baseline, ratio, target, pass ? "PASS" : "MISS");
  }

  /**
   * The locality counting rows: {@code on} (counting every Service port) against {@code off} (no
   * counting), at most 1.1× apart.
   */
  static Row countingCost(
      String benchmark,
      String scale,
      double on,
      double off,
      java.util.function.DoubleFunction<String> unit) {
    return check(
        benchmark,
        scale,
        unit.apply(on),
        "off: " + unit.apply(off),
        ratio(on, off),
        "≤ 1.1×",
        on <= 1.1 * off);
  }

  /** The new-node row: the median of the cold starts against 2 s, with their spread. */
  static Row coldSync(Stats totals, String scale) {
    return check(
        "Cold full sync: proxy start → rules in an empty namespace (median of "
            + totals.size()
            + ", "
            + spread(totals)
            + ")",
        scale,
        ms(totals.median()),
        "-",
        "-",
        "≤ 2 s",
        totals.median() <= 2000);
  }

  /** "min–max A–B" of the figures, in the table's units. */
  static String spread(Stats figures) {
    return "min–max " + ms(figures.min()) + "–" + ms(figures.max());
  }

  static Row report(String benchmark, String scale, String result, String baseline, String ratio) {
    return new Row(benchmark, scale, result, baseline, ratio, "report", "REPORT");
  }

  /** Resident and peak memory of a process against the 256 MiB bound. */
  static Row memory(
      String what, SyntheticCluster cluster, double[] rssAndPeakMiB, double[] afterFullGc) {
    return check(
        what
            + String.format(
                " (the manifest's JVM flags; peak %.0f MiB; of the RSS %.0f MiB file-backed; after a"
                    + " forced full GC: RSS %.0f MiB, live heap %.0f MiB)",
                rssAndPeakMiB[1], rssAndPeakMiB[2], afterFullGc[0], afterFullGc[1]),
        cluster.serviceCount() + " svc × " + cluster.endpointsPerService() + " ep",
        String.format("%.0f MiB", rssAndPeakMiB[0]),
        "-",
        "-",
        "peak ≤ 256 MiB",
        rssAndPeakMiB[1] <= 256);
  }

  /**
   * A ratio target: the median at the larger size over the median at the smaller one, with the
   * spread of the same ratio over rounds of consecutive measurements (the i-th round of one size
   * against the i-th of the other).
   */
  static Row flat(String benchmark, int large, int small, Stats atLarge, Stats atSmall) {
    double a = atLarge.median();
    double b = atSmall.median();
    return check(
        benchmark + spread(atLarge, atSmall, 2),
        large + " vs " + small + " svc",
        ms(a),
        small + " svc: " + ms(b),
        ratio(a, b),
        "≤ 2×",
        a <= 2 * b);
  }

  /**
   * " (ratio over rounds: min–max, crosses the target)" or "" when too few measurements: rounds of
   * five measurements, at least four of them.
   */
  static String spread(Stats atLarge, Stats atSmall, double bound) {
    int each = Math.min(atLarge.size(), atSmall.size());
    int rounds = each >= 20 ? each / 5 : each >= 12 ? 4 : 0;
    if (rounds == 0) {
      return "";
    }
    var large = atLarge.rounds(rounds);
    var small = atSmall.rounds(rounds);
    var ratios = new java.util.ArrayList<Double>();
    for (int r = 0; r < rounds; r++) {
      ratios.add(large.get(r).median() / small.get(r).median());
    }
    var stats = new Stats(ratios);
    return String.format(
        " (ratio of round medians over %d rounds of %d: %.2f–%.2f×%s)",
        rounds,
        Math.min(atLarge.size(), atSmall.size()) / rounds,
        stats.min(),
        stats.max(),
        stats.min() <= bound && stats.max() > bound ? ", crosses the target" : "");
  }

  static Row pending(String benchmark, String scale, String why) {
    return new Row(benchmark, scale, why, "-", "-", "-", "PENDING");
  }

  static Row skipped(String benchmark, String scale, String why) {
    return new Row(benchmark, scale, why, "-", "-", "-", "SKIPPED");
  }

  static String ms(double millis) {
    return millis >= 1000
        ? String.format("%.2f s", millis / 1000)
        : String.format("%.1f ms", millis);
  }

  static String ratio(double result, double baseline) {
    return baseline <= 0 ? "-" : String.format("%.2f×", result / baseline);
  }

  String markdown() {
    return "| "
        + String.join(
            " | ",
            benchmark.replace("|", "\\|"),
            scale,
            result.replace("|", "\\|"),
            baseline.replace("|", "\\|"),
            ratio,
            target.replace("|", "\\|"),
            verdict)
        + " |";
  }

  static String header() {
    return "| benchmark | scale | result | baseline (same run) | ratio | target | pass/fail |\n"
        + "|---|---|---|---|---|---|---|";
  }
}
