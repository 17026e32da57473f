package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Keeps the hints of unchanged slices when they are still valid (upstream's getAllocatedHintsByZone
 * and getHintsByZone), so hints that were right, even cross-zone ones, survive later syncs without
 * a write.
 */
final class StickyHints {
  private StickyHints() {}

  /**
   * Walks the unchanged slices in order with a running count per zone. A slice whose hints are
   * invalid is appended to the updates as a deep copy (with its old hints, which the planner then
   * rewrites); a valid slice stays unchanged and its hints are counted.
   *
   * @return zone to the number of ready endpoints the kept slices hint to it; mutable
   */
  static SortedMap<String, Integer> keepValid(
      WorkingSlices working, Map<String, Allocation> allocations) {
    var allocated = new TreeMap<String, Integer>();
    var stillUnchanged = new ArrayList<EndpointSlice>();
    for (var slice : working.unchanged) {
      var hints = hintsByZone(slice, allocated, allocations);
      if (hints.isEmpty()) {
        working.toUpdate.add(WorkingSlices.deepCopy(slice));
      } else {
        stillUnchanged.add(slice);
        hints.get().forEach((zone, count) -> allocated.merge(zone, count, Integer::sum));
      }
    }
    working.unchanged = stillUnchanged;
    return allocated;
  }

  /**
   * The hints a slice's ready endpoints give each zone, or empty when the slice must be rewritten:
   * a ready endpoint has no zone hint, hints a zone without an allocation, or the slice would push
   * a zone past its maximum on top of {@code allocatedSoFar}. Unready endpoints are ignored.
   */
  static Optional<SortedMap<String, Integer>> hintsByZone(
      EndpointSlice slice,
      Map<String, Integer> allocatedSoFar,
      Map<String, Allocation> allocations) {
    var byZone = new TreeMap<String, Integer>();
    for (var endpoint : EndpointFacts.endpoints(slice)) {
      if (!EndpointFacts.isReady(endpoint)) {
        continue;
      }
      var hints = endpoint.getHints();
      if (hints == null || hints.getForZones() == null || hints.getForZones().isEmpty()) {
        return Optional.empty();
      }
      for (var forZone : hints.getForZones()) {
        var zone = forZone == null ? null : forZone.getName();
        if (zone == null || !allocations.containsKey(zone)) {
          return Optional.empty();
        }
        byZone.merge(zone, 1, Integer::sum);
      }
    }
    for (var entry : byZone.entrySet()) {
      int already = allocatedSoFar.getOrDefault(entry.getKey(), 0);
      if (entry.getValue() + already > allocations.get(entry.getKey()).maximum()) {
        return Optional.empty();
      }
    }
    return Optional.of(byZone);
  }
}
