package dev.proxima.controller.hints.auto;

import java.util.Map;

/**
 * Upstream's serviceOverloaded: whether a Service's last allocation leaves some zone below its
 * minimum under the current ratios, so that a Node change should re-queue it.
 */
public final class Overload {
  private Overload() {}

  /**
   * True when hints were allocated and either the ratios are insufficient or empty, a zone of the
   * ratios has no allocation, or a zone holds fewer than {@code ceil(total * ratio * 1/(1+0.2))}
   * endpoints. False when nothing was allocated.
   */
  public static boolean serviceOverloaded(
      ZoneCpuRatios ratios, Map<String, Integer> allocatedByZone) {
    if (allocatedByZone.isEmpty()) {
      return false;
    }
    if (ratios.ratios().isEmpty()) {
      return true;
    }
    double total = 0.0;
    for (int count : allocatedByZone.values()) {
      total += count;
    }
    for (var entry : ratios.ratios().entrySet()) {
      var count = allocatedByZone.get(entry.getKey());
      if (count == null) {
        return true;
      }
      double minimum = Math.ceil(total * entry.getValue() * Allocations.MINIMUM_FACTOR);
      if (count < (int) minimum) {
        return true;
      }
    }
    return false;
  }
}
