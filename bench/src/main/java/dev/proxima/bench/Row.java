package dev.proxima.bench;

/**
 * One line of the results table.
 *
 * @param baseline what the result is compared with, measured in the same run ("-" for absolute
 *     bounds)
 * @param ratio result over baseline, or "-"
 * @param verdict PASS or MISS against the target; REPORT where the issue asks only for a figure;
 *     PENDING where the thing measured does not exist yet; SKIPPED where this machine cannot run it
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

  static Row report(String benchmark, String scale, String result, String baseline, String ratio) {
    return new Row(benchmark, scale, result, baseline, ratio, "report", "REPORT");
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
