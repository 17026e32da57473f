package dev.proxima.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample of measurements (nearest rank). */
final class Stats {
  private final List<Double> sorted;
  private final List<Double> inOrder;

  Stats(List<Double> values) {
    if (values.isEmpty()) {
      throw new HarnessError("no measurements");
    }
    inOrder = List.copyOf(values);
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

  /**
   * The measurements in the order taken, cut into {@code rounds} consecutive rounds of equal size
   * (the last takes the rest), for a spread over rounds.
   */
  List<Stats> rounds(int rounds) {
    var all = new ArrayList<Stats>();
    int each = inOrder.size() / rounds;
    for (int r = 0; r < rounds; r++) {
      int to = r == rounds - 1 ? inOrder.size() : (r + 1) * each;
      all.add(new Stats(inOrder.subList(r * each, to)));
    }
    return all;
  }

  int size() {
    return sorted.size();
  }

  /** The measurements in the order taken. */
  List<Double> values() {
    return inOrder;
  }
}
