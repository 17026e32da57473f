package dev.proxima.controller.hints.auto;

import dev.proxima.controller.events.PlannedEvent;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Upstream's TopologyCache.AddHints, the heuristic behind {@code
 * service.kubernetes.io/topology-mode: Auto}, as a pure function of the zone CPU ratios, one
 * Service's slices of one address type and whether that Service already had hints populated.
 *
 * <ol>
 *   <li>Allocate the ready endpoints to zones by CPU share ({@link Allocations}); on refusal remove
 *       every hint.
 *   <li>Keep unchanged slices whose hints are still valid; rewrite the others.
 *   <li>Hint every ready endpoint of the slices being written to its own zone; a ready endpoint
 *       without a zone removes every hint instead. Unready endpoints are neither counted nor
 *       touched, so they keep whatever hints they had.
 *   <li>Move endpoints from zones with a surplus to zones in need ({@link Rebalancing}).
 * </ol>
 *
 * <p>Deterministic: wherever upstream ranges over a Go map (random order), zones are taken in name
 * order. Only tie-breaks depend on it, and upstream's tests assert nothing that does.
 *
 * <p>Never mutates its inputs: the slices to create and update are deep-copied before hints are
 * written, and unchanged slices are copied before they move to the updates. Never writes {@code
 * forNodes}.
 */
public final class AutoHintPlanner {

  public AutoHintResult plan(ZoneCpuRatios ratios, SliceInfo info, boolean previouslyPopulated) {
    var working = WorkingSlices.copyOf(info);
    var allocations = Allocations.compute(ratios, info.totalReadyEndpoints());
    if (allocations.refused()) {
      return disable(working, info, allocations.refusal().orElseThrow());
    }

    var allocated = StickyHints.keepValid(working, allocations.byZone());
    var allocatable = working.allocatable();
    for (var slice : allocatable) {
      for (var endpoint : EndpointFacts.endpoints(slice)) {
        if (!EndpointFacts.isReady(endpoint)) {
          continue;
        }
        if (!EndpointFacts.hasZone(endpoint)) {
          return disable(working, info, AutoHintEvents.NO_ZONE_SPECIFIED);
        }
        allocated.merge(endpoint.getZone(), 1, Integer::sum);
        endpoint.setHints(EndpointFacts.zoneHint(endpoint.getZone()));
      }
    }

    var transfers = Rebalancing.givingAndReceivingZones(allocations.byZone(), allocated);
    Rebalancing.redistribute(allocatable, transfers)
        .forEach((zone, delta) -> allocated.merge(zone, delta, Integer::sum));
    return conclude(working, info, allocated, previouslyPopulated);
  }

  /**
   * The last step: record the allocation, or remove every hint when no zone got any (upstream's "No
   * hints allocated for zones" safeguard, which the allocation checks make unreachable from {@link
   * #plan}).
   */
  static AutoHintResult conclude(
      WorkingSlices working,
      SliceInfo info,
      SortedMap<String, Integer> allocated,
      boolean previouslyPopulated) {
    if (allocated.isEmpty()) {
      return disable(working, info, AutoHintEvents.NO_ALLOCATED_HINTS_FOR_ZONES);
    }
    var events =
        previouslyPopulated
            ? List.<PlannedEvent>of()
            : List.of(AutoHintEvents.enabled(info.service(), info.addressType()));
    return new AutoHintResult(working.toPlan(), events, allocated, true);
  }

  private static AutoHintResult disable(WorkingSlices working, SliceInfo info, String cause) {
    HintRemoval.apply(working);
    return new AutoHintResult(
        working.toPlan(),
        List.of(AutoHintEvents.disabled(info.service(), cause, info.addressType())),
        new TreeMap<>(),
        false);
  }
}
