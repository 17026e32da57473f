package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The picture of docs/traffic-distribution.md's spill-over example is drawn from the arithmetic
 * itself, so it cannot drift from it. Run with {@code -Dproxima.drawPictures=true} to redraw it.
 */
class ZoneSpillOverPictureTest {
  private static final Path PICTURE = Path.of("..", "docs", "images", "zone-spill-over.svg");
  private static final Map<String, Integer> ENDPOINTS =
      new TreeMap<>(Map.of("A", 2, "B", 4, "C", 4));
  private static final ZoneDemand DEMAND =
      ZoneDemand.ofRatios(Map.of("A", 0.5, "B", 0.25, "C", 0.25));
  private static final double TOLERANCE = 1.25;

  // Layout, in pixels.
  private static final int WIDTH = 820;
  private static final int HEIGHT = 440;
  private static final int LEFT = 70;
  private static final int TOP = 70;
  private static final int BOTTOM = 340;
  private static final double MAX = 3.0;
  private static final int SLOT = 56;
  private static final int BAR = 22;
  private static final int ZONE_GAP = 24;

  @Test
  void theDocsPictureIsWhatTheArithmeticGives() throws IOException {
    var drawn = draw();
    if (Boolean.getBoolean("proxima.drawPictures")) {
      Files.writeString(PICTURE, drawn);
    }

    assertThat(Files.readString(PICTURE))
        .as("%s; redraw it with -Dproxima.drawPictures=true", PICTURE)
        .isEqualTo(drawn);
  }

  static String draw() {
    var allLocal = new TreeMap<String, Double>();
    DEMAND.shares().keySet().forEach(zone -> allLocal.put(zone, 1.0));
    var before =
        ZoneSpillOver.loadsOverMean(ENDPOINTS, DEMAND, new ZoneSpillOver.Fractions(allLocal, 0));
    var fractions = ZoneSpillOver.fractions(ENDPOINTS, DEMAND, TOLERANCE);
    var after = ZoneSpillOver.loadsOverMean(ENDPOINTS, DEMAND, fractions);

    var svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    svg.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
    svg.append(
        text(
            LEFT,
            26,
            "Expected share of new connections per endpoint, over the mean",
            "font-size=\"14\" font-weight=\"bold\""));
    svg.append(
        text(
            LEFT,
            46,
            "10 endpoints; zone A has half the clients (by allocatable CPU) but 2 endpoints",
            ""));
    for (double level = 0; level <= MAX + 1e-9; level += 0.5) {
      double y = y(level);
      svg.append(line(LEFT, y, WIDTH - 130, y, "#e0e0e0", ""));
      svg.append(text(LEFT - 6, y + 4, format(level) + "×", "text-anchor=\"end\""));
    }
    int right = LEFT + 16;
    int x = LEFT + 16;
    for (var zone : ENDPOINTS.entrySet()) {
      int start = x;
      for (int i = 0; i < zone.getValue(); i++) {
        svg.append(bar(x, before.get(zone.getKey()), "#b0b0b0"));
        svg.append(bar(x + BAR, after.get(zone.getKey()), "#1f77b4"));
        x += SLOT;
      }
      double p = fractions.localFraction(zone.getKey());
      svg.append(
          text(
              (start + x - SLOT + 2 * BAR) / 2.0,
              BOTTOM + 20,
              "zone "
                  + zone.getKey()
                  + ": "
                  + format(DEMAND.shares().get(zone.getKey()) * 100)
                  + "% of clients",
              "text-anchor=\"middle\""));
      svg.append(
          text(
              (start + x - SLOT + 2 * BAR) / 2.0,
              BOTTOM + 36,
              "keeps " + format(p * 100) + "% in-zone",
              "text-anchor=\"middle\""));
      right = x;
      x += ZONE_GAP;
    }
    svg.append(line(LEFT, y(1), right, y(1), "#333333", " stroke-dasharray=\"2 3\""));
    svg.append(text(right + 4, y(1) + 4, "mean", ""));
    svg.append(
        line(LEFT, y(TOLERANCE), right, y(TOLERANCE), "#d62728", " stroke-dasharray=\"6 4\""));
    svg.append(
        text(
            right + 4,
            y(TOLERANCE) + 4,
            "tolerance " + format(TOLERANCE) + "×",
            "fill=\"#d62728\""));
    svg.append(line(LEFT, BOTTOM, right, BOTTOM, "#333333", ""));
    svg.append(line(LEFT, TOP, LEFT, BOTTOM, "#333333", ""));
    int legend = HEIGHT - 24;
    svg.append(rect(LEFT, legend - 10, 12, 12, "#b0b0b0"));
    svg.append(
        text(
            LEFT + 18,
            legend,
            "without spill-over: zone A's endpoints take " + format(before.get("A")) + "× the mean",
            ""));
    svg.append(rect(LEFT + 400, legend - 10, 12, 12, "#1f77b4"));
    svg.append(text(LEFT + 418, legend, "with it: none above " + format(TOLERANCE) + "×", ""));
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static double y(double load) {
    return BOTTOM - (BOTTOM - TOP) * load / MAX;
  }

  private static String bar(int x, double load, String colour) {
    return rect(x, y(load), BAR - 2, BOTTOM - y(load), colour);
  }

  private static String rect(double x, double y, double width, double height, String colour) {
    return String.format(
        Locale.ROOT,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
        x,
        y,
        width,
        height,
        colour);
  }

  private static String line(
      double x1, double y1, double x2, double y2, String colour, String extra) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.0\"%s/>%n",
        x1,
        y1,
        x2,
        y2,
        colour,
        extra);
  }

  private static String text(double x, double y, String content, String attributes) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\"%s>%s</text>%n",
        x,
        y,
        attributes.isEmpty() ? "" : " " + attributes,
        content);
  }

  private static String format(double value) {
    return java.math.BigDecimal.valueOf(value)
        .setScale(2, java.math.RoundingMode.HALF_EVEN)
        .stripTrailingZeros()
        .toPlainString();
  }
}
