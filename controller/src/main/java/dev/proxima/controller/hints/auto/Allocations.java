package dev.proxima.controller.hints.auto;

import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Upstream's getAllocations: either an {@link Allocation} per zone or the reason hints cannot be
 * written, as an Event message without the address-type suffix.
 */
public record Allocations(SortedMap<String, Allocation> byZone, Optional<String> refusal) {
  /**
   * The maximum overload any endpoint should see. Minimums use the factor {@code 1 / (1 + 0.2)},
   * which as a double is 0.8333333333333334 both here and in Go.
   */
  static final double OVERLOAD_THRESHOLD = 0.2;

  static final double MINIMUM_FACTOR = 1 / (1 + OVERLOAD_THRESHOLD);

  public Allocations {
    byZone = Collections.unmodifiableSortedMap(new TreeMap<>(byZone));
    Objects.requireNonNull(refusal, "refusal");
  }

  /**
   * Allocates {@code readyEndpoints} endpoints across the zones of {@code ratios}.
   *
   * <p>Refused when the node information is insufficient, when fewer than two zones are known, when
   * there are fewer ready endpoints than zones, or when the per-zone minimums add up to more than
   * the ready endpoints. For each zone, in double arithmetic and in this order: {@code desired =
   * ratio * n}, then {@code minimum = ceil(desired * MINIMUM_FACTOR)}, then desired is raised to
   * the minimum. A zone's {@code maximum} is its minimum plus whatever the minimums leave over.
   * Zones are visited in name order where upstream iterates a Go map; the result does not depend on
   * it.
   */
  public static Allocations compute(ZoneCpuRatios ratios, int readyEndpoints) {
    if (!ratios.sufficientNodeInfo()) {
      return refused(AutoHintEvents.INSUFFICIENT_NODE_INFO);
    }
    var zones = ratios.ratios();
    if (zones.size() < 2) {
      return refused(AutoHintEvents.NODES_READY_IN_ONE_ZONE_ONLY);
    }
    if (zones.size() > readyEndpoints) {
      return refused(
          countsMessage(
              AutoHintEvents.INSUFFICIENT_NUMBER_OF_ENDPOINTS, readyEndpoints, zones.size()));
    }

    int remaining = readyEndpoints;
    int minimumTotal = 0;
    var minimums = new TreeMap<String, Integer>();
    var desired = new TreeMap<String, Double>();
    for (var entry : zones.entrySet()) {
      double zoneDesired = entry.getValue() * readyEndpoints;
      int minimum = (int) Math.ceil(zoneDesired * MINIMUM_FACTOR);
      minimums.put(entry.getKey(), minimum);
      desired.put(entry.getKey(), Math.max(zoneDesired, minimum));
      minimumTotal += minimum;
      remaining -= minimum;
      if (remaining < 0) {
        return refused(
            countsMessage(
                AutoHintEvents.MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD,
                readyEndpoints,
                zones.size()));
      }
    }

    var byZone = new TreeMap<String, Allocation>();
    for (var entry : minimums.entrySet()) {
      int minimum = entry.getValue();
      byZone.put(
          entry.getKey(),
          new Allocation(
              minimum, minimum + readyEndpoints - minimumTotal, desired.get(entry.getKey())));
    }
    return new Allocations(byZone, Optional.empty());
  }

  public boolean refused() {
    return refusal.isPresent();
  }

  private static Allocations refused(String message) {
    return new Allocations(new TreeMap<>(), Optional.of(message));
  }

  private static String countsMessage(String text, int endpoints, int zones) {
    return text + " (" + endpoints + " endpoints, " + zones + " zones)";
  }
}
