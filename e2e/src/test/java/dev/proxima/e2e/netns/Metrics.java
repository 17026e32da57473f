package dev.proxima.e2e.netns;

/** Reads one sample from Prometheus text exposition. */
final class Metrics {
  private Metrics() {}

  /** The value of {@code name}'s sample whose labels contain every one of {@code labels}. */
  static double value(String exposition, String name, String... labels) {
    return exposition
        .lines()
        .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
        .filter(
            line -> {
              for (var label : labels) {
                if (!line.contains(label)) {
                  return false;
                }
              }
              return true;
            })
        .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(Double.NaN);
  }
}
