package dev.proxima.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample of measurements (nearest rank). */
final class Stats {
  private final List<Double> sorted;

  Stats(List<Double> values) {
    if (values.isEmpty()) {
      throw new HarnessError("no measurements");
    }
    sorted = new ArrayList<>(values);
    Collections.sort(sorted);
  }

  double percentile(double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  double median() {
    return percentile(50);
  }

  double min() {
    return sorted.get(0);
  }

  double max() {
    return sorted.get(sorted.size() - 1);
  }

  int size() {
    return sorted.size();
  }
}
