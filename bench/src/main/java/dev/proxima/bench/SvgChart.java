package dev.proxima.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * Draws one scatter chart as a standalone SVG document: points with their spread as bars, each
 * labelled with its cluster shape, on a logarithmic or linear axis. Measured series are drawn as
 * filled circles, series reported elsewhere as hollow squares, so the two can never be confused.
 * Plain text output, no library: the charts are small and a browser or GitHub renders them as they
 * are.
 */
final class SvgChart {
  /** An axis: its title, whether it is logarithmic, and how its tick values read. */
  record Axis(String title, boolean log, DoubleFunction<String> format) {}

  /** The points of one series; {@code reported} marks figures not measured by this harness. */
  record Series(String name, boolean reported, List<ChartPoint> points) {}

  private static final int WIDTH = 780;
  private static final int HEIGHT = 460;
  private static final int LEFT = 80;
  private static final int RIGHT = WIDTH - 250;
  private static final int TOP = 50;
  private static final int BOTTOM = HEIGHT - 70;
  private static final String[] MEASURED_COLOURS = {"#1f77b4", "#2ca02c", "#9467bd"};
  private static final String[] REPORTED_COLOURS = {"#d62728", "#ff7f0e", "#8c564b"};

  private SvgChart() {}

  static String render(String title, Axis x, Axis y, List<Series> series) {
    var xs = new ArrayList<Double>();
    var ys = new ArrayList<Double>();
    for (var s : series) {
      for (var p : s.points()) {
        xs.add((double) p.endpoints());
        ys.add(p.low());
        ys.add(p.high());
        ys.add(p.value());
      }
    }
    double[] xRange = range(xs, x.log());
    double[] yRange = range(ys, y.log());
    var svg = new StringBuilder();
    svg.append(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0"
                    + " %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT))
        .append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, HEIGHT))
        .append(text(LEFT, 28, title, "font-size=\"15\" font-weight=\"bold\""));

    for (double tick : ticks(xRange, x.log())) {
      double px = scale(tick, xRange, x.log(), LEFT, RIGHT);
      svg.append(line(px, TOP, px, BOTTOM, "#e0e0e0", 1))
          .append(text(px, BOTTOM + 18, x.format().apply(tick), "text-anchor=\"middle\""));
    }
    for (double tick : ticks(yRange, y.log())) {
      double py = scale(tick, yRange, y.log(), BOTTOM, TOP);
      svg.append(line(LEFT, py, RIGHT, py, "#e0e0e0", 1))
          .append(text(LEFT - 6, py + 4, y.format().apply(tick), "text-anchor=\"end\""));
    }
    svg.append(line(LEFT, BOTTOM, RIGHT, BOTTOM, "#333333", 1))
        .append(line(LEFT, TOP, LEFT, BOTTOM, "#333333", 1))
        .append(text((LEFT + RIGHT) / 2.0, BOTTOM + 40, x.title(), "text-anchor=\"middle\""))
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18"
                    + " %.1f)\">%s</text>\n",
                (TOP + BOTTOM) / 2.0,
                (TOP + BOTTOM) / 2.0,
                escape(y.title())));

    var labels = new ArrayList<double[]>();
    var labelTexts = new ArrayList<String>();
    int measured = 0;
    int reported = 0;
    int legendY = TOP + 10;
    for (var s : series) {
      String colour =
          s.reported()
              ? REPORTED_COLOURS[reported++ % REPORTED_COLOURS.length]
              : MEASURED_COLOURS[measured++ % MEASURED_COLOURS.length];
      for (var p : s.points()) {
        double px = scale(p.endpoints(), xRange, x.log(), LEFT, RIGHT);
        double py = scale(p.value(), yRange, y.log(), BOTTOM, TOP);
        if (p.high() > p.low()) {
          double lowY = scale(p.low(), yRange, y.log(), BOTTOM, TOP);
          double highY = scale(p.high(), yRange, y.log(), BOTTOM, TOP);
          svg.append(line(px, lowY, px, highY, colour, 1.5))
              .append(line(px - 4, lowY, px + 4, lowY, colour, 1.5))
              .append(line(px - 4, highY, px + 4, highY, colour, 1.5));
        }
        svg.append(marker(px, py, colour, s.reported()));
        if (!labelledNearby(labels, labelTexts, px, py, p.shape())) {
          labels.add(new double[] {px, py});
          labelTexts.add(p.shape());
          svg.append(text(px + 8, py - 7, p.shape(), "font-size=\"10\" fill=\"#555555\""));
        }
      }
      svg.append(marker(RIGHT + 22, legendY - 4, colour, s.reported()))
          .append(text(RIGHT + 34, legendY, s.name(), ""));
      legendY += 22;
    }
    svg.append(
            text(
                RIGHT + 16,
                legendY + 14,
                "● measured by ./bench.sh",
                "font-size=\"10\" fill=\"#555555\""))
        .append(
            text(
                RIGHT + 16,
                legendY + 30,
                "□ reported elsewhere, not measured here",
                "font-size=\"10\" fill=\"#555555\""))
        .append(
            text(
                RIGHT + 16,
                legendY + 46,
                "bars: lowest to highest repetition",
                "font-size=\"10\" fill=\"#555555\""))
        .append(
            text(
                RIGHT + 16,
                legendY + 62,
                "labels: Services × endpoints each",
                "font-size=\"10\" fill=\"#555555\""))
        .append("</svg>\n");
    return svg.toString();
  }

  private static boolean labelledNearby(
      List<double[]> labels, List<String> texts, double px, double py, String text) {
    for (int i = 0; i < labels.size(); i++) {
      if (texts.get(i).equals(text)
          && Math.abs(labels.get(i)[0] - px) < 1
          && Math.abs(labels.get(i)[1] - py) < 14) {
        return true;
      }
    }
    return false;
  }

  /** The axis range: whole decades for a log axis, zero to a round number for a linear one. */
  static double[] range(List<Double> values, boolean log) {
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(1);
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
    if (log) {
      double lo = Math.pow(10, Math.floor(Math.log10(Math.max(min, 1e-9))));
      double hi = lo;
      while (hi < max) {
        hi = hi * (firstDigit(hi) == 2 ? 2.5 : 2);
      }
      return new double[] {lo, hi > lo ? hi : lo * 10};
    }
    double step = niceStep(max * 1.1 / 5);
    return new double[] {0, Math.max(step, Math.ceil(max * 1.1 / step) * step)};
  }

  private static int firstDigit(double value) {
    return (int) Math.round(value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9)));
  }

  /**
   * Tick values: 1, 2 and 5 of each decade on a log axis (decades only past three, and the top),
   * else round steps from zero.
   */
  static List<Double> ticks(double[] range, boolean log) {
    var ticks = new ArrayList<Double>();
    if (log) {
      boolean fine = range[1] / range[0] <= 1000.5;
      for (double decade = range[0]; decade <= range[1] * 1.0001; decade *= 10) {
        for (double m : fine ? new double[] {1, 2, 5} : new double[] {1}) {
          if (decade * m <= range[1] * 1.0001) {
            ticks.add(decade * m);
          }
        }
      }
      if (Math.abs(ticks.get(ticks.size() - 1) / range[1] - 1) > 1e-6) {
        ticks.add(range[1]);
      }
      return ticks;
    }
    double step = niceStep(range[1] / 5);
    for (double v = 0; v <= range[1] + step / 1000; v += step) {
      ticks.add(v);
    }
    return ticks;
  }

  private static double niceStep(double raw) {
    double decade = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (raw <= m * decade) {
        return m * decade;
      }
    }
    return 10 * decade;
  }

  static double scale(double value, double[] range, boolean log, double from, double to) {
    double f =
        log
            ? (Math.log10(value) - Math.log10(range[0]))
                / (Math.log10(range[1]) - Math.log10(range[0]))
            : (value - range[0]) / (range[1] - range[0]);
    return from + f * (to - from);
  }

  private static String marker(double x, double y, String colour, boolean reported) {
    return reported
        ? String.format(
            Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"white\" stroke=\"%s\""
                + " stroke-width=\"2\"/>\n",
            x - 5,
            y - 5,
            colour)
        : String.format(
            Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", x, y, colour);
  }

  private static String line(double x1, double y1, double x2, double y2, String colour, double w) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
        x1,
        y1,
        x2,
        y2,
        colour,
        w);
  }

  private static String text(double x, double y, String content, String attributes) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\"%s>%s</text>\n",
        x,
        y,
        attributes.isEmpty() ? "" : " " + attributes,
        escape(content));
  }

  static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  /** "500 ms", "2 s", "1000 s": a tick value in milliseconds as a reader says it. */
  static String duration(double millis) {
    if (millis < 1000) {
      return compact(millis) + " ms";
    }
    return compact(millis / 1000) + " s";
  }

  /** "20k", "1M": an endpoint count. */
  static String count(double n) {
    if (n >= 1_000_000) {
      return compact(n / 1_000_000) + "M";
    }
    if (n >= 1000) {
      return compact(n / 1000) + "k";
    }
    return compact(n);
  }

  static String mebibytes(double mib) {
    return compact(mib) + " MiB";
  }

  private static String compact(double v) {
    return v == Math.rint(v)
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
