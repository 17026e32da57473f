package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Moves whole endpoints from zones holding more than their CPU share to zones holding less
 * (upstream's getGivingAndReceivingZones, getMost and redistributeHints).
 *
 * <p>Where upstream iterates a Go map, zones are visited in name order: a tie for "most to give" or
 * "most to receive" goes to the zone whose name sorts first, and a re-hinted endpoint goes to the
 * first receiving zone by name that still needs endpoints. Go's order is random, so upstream may
 * pick any of the tied zones; ours always picks the same one. Counts never depend on it.
 */
final class Rebalancing {
  private Rebalancing() {}

  /** How many endpoints each zone gives away and each zone receives. */
  record Transfers(Map<String, Integer> giving, Map<String, Integer> receiving) {
    Transfers {
      giving = Collections.unmodifiableSortedMap(new TreeMap<>(giving));
      receiving = Collections.unmodifiableSortedMap(new TreeMap<>(receiving));
    }
  }

  /**
   * Compares each zone's allocated endpoints with its desired (fractional) number, then moves one
   * endpoint at a time from the zone with the most surplus to the zone with the greatest need. It
   * stops when either side is empty, when both are below one endpoint, or when either is below half
   * an endpoint: a same-zone hint is preferred over a slightly better spread.
   */
  static Transfers givingAndReceivingZones(
      Map<String, Allocation> allocations, Map<String, Integer> allocatedByZone) {
    var surplus = new TreeMap<String, Double>();
    var need = new TreeMap<String, Double>();
    for (var entry : new TreeMap<>(allocations).entrySet()) {
      double allocated = allocatedByZone.getOrDefault(entry.getKey(), 0);
      double target = entry.getValue().desired();
      if (allocated > target) {
        surplus.put(entry.getKey(), allocated - target);
      } else if (allocated < target) {
        need.put(entry.getKey(), target - allocated);
      }
    }

    var giving = new TreeMap<String, Integer>();
    var receiving = new TreeMap<String, Integer>();
    while (true) {
      var giver = most(surplus);
      var receiver = most(need);
      if (giver == null || receiver == null) {
        break;
      }
      double toGive = giver.getValue();
      double toReceive = receiver.getValue();
      if ((toGive < 1.0 && toReceive < 1.0) || toGive < 0.5 || toReceive < 0.5) {
        break;
      }
      giving.merge(giver.getKey(), 1, Integer::sum);
      surplus.put(giver.getKey(), toGive - 1);
      receiving.merge(receiver.getKey(), 1, Integer::sum);
      need.put(receiver.getKey(), toReceive - 1);
    }
    return new Transfers(giving, receiving);
  }

  /**
   * Re-hints ready endpoints of the given slices, in order, from giving zones to receiving zones,
   * writing the new hint in place (callers pass their own copies). Endpoints without a zone are
   * skipped; it stops once either side has nothing left.
   *
   * @return zone to the change in the number of endpoints hinted to it
   */
  static SortedMap<String, Integer> redistribute(
      Iterable<EndpointSlice> slices, Transfers transfers) {
    var giving = new TreeMap<>(transfers.giving());
    var receiving = new TreeMap<>(transfers.receiving());
    var deltas = new TreeMap<String, Integer>();
    for (var slice : slices) {
      for (var endpoint : EndpointFacts.endpoints(slice)) {
        if (!EndpointFacts.isReady(endpoint)) {
          continue;
        }
        if (giving.isEmpty() || receiving.isEmpty()) {
          return deltas;
        }
        if (!EndpointFacts.hasZone(endpoint)) {
          continue;
        }
        var from = endpoint.getZone();
        if (giving.getOrDefault(from, 0) <= 0) {
          continue;
        }
        var to =
            receiving.entrySet().stream()
                .filter(entry -> entry.getValue() > 0)
                .map(Map.Entry::getKey)
                .findFirst();
        if (to.isEmpty()) {
          continue;
        }
        endpoint.setHints(EndpointFacts.zoneHint(to.get()));
        decrement(giving, from);
        decrement(receiving, to.get());
        deltas.merge(to.get(), 1, Integer::sum);
        deltas.merge(from, -1, Integer::sum);
      }
    }
    return deltas;
  }

  /** Upstream's getMost: the first entry with the largest value above zero, or null. */
  private static Map.Entry<String, Double> most(SortedMap<String, Double> values) {
    Map.Entry<String, Double> best = null;
    for (var entry : values.entrySet()) {
      if (entry.getValue() > (best == null ? 0.0 : best.getValue())) {
        best = entry;
      }
    }
    return best == null ? null : Map.entry(best.getKey(), best.getValue());
  }

  private static void decrement(Map<String, Integer> counts, String zone) {
    int left = counts.get(zone) - 1;
    if (left <= 0) {
      counts.remove(zone);
    } else {
      counts.put(zone, left);
    }
  }
}
