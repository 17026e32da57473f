package dev.proxima.controller.hints.auto;

import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state upstream's TopologyCache keeps between syncs: the current zone ratios, the allocation
 * last written per Service and address type, and which Services have hints populated. Thread-safe;
 * every method holds one lock, and {@link #addHints} plans and records under it, so a concurrent
 * {@link #setNodes} cannot interleave (upstream's race fixed by PR #117249).
 *
 * <p>Faithful to upstream in three details callers should know:
 *
 * <ul>
 *   <li>Before the first {@link #setNodes}, the ratios are an empty map, not insufficient, so hints
 *       are refused with "Nodes only ready in one zone".
 *   <li>"Populated" is per Service, not per address type: removing hints for one address type
 *       clears it, so the next successful sync of the other one emits the Enabled Event again.
 *   <li>Issue #123401: once the ratios become insufficient, every sync removes the Service from the
 *       cache, so when the ratios come back {@link #overloadedServices} no longer lists it and its
 *       hints return only on its next unrelated sync.
 * </ul>
 */
public final class AutoHintCache {
  private final AutoHintPlanner planner = new AutoHintPlanner();
  private final Map<ObjectKey, SortedMap<String, SortedMap<String, Integer>>> allocatedByService =
      new TreeMap<>();
  private final Set<ObjectKey> populated = new HashSet<>();
  private ZoneCpuRatios ratios = ZoneCpuRatios.of(Map.of());

  /** Upstream's SetNodes; returns the new ratios. */
  public synchronized ZoneCpuRatios setNodes(List<Node> nodes) {
    ratios = ZoneCpuRatios.fromNodes(nodes);
    return ratios;
  }

  public synchronized ZoneCpuRatios ratios() {
    return ratios;
  }

  /** Upstream's AddHints: plans with the current ratios and records the outcome. */
  public synchronized AutoHintResult addHints(SliceInfo info) {
    var result = planner.plan(ratios, info, populated.contains(info.service()));
    if (result.hintsPopulated()) {
      allocatedByService
          .computeIfAbsent(info.service(), key -> new TreeMap<>())
          .put(info.addressType(), result.allocatedByZone());
      populated.add(info.service());
    } else {
      removeHints(info.service(), info.addressType());
    }
    return result;
  }

  /** Upstream's RemoveHints: forgets one address type and clears the Service's populated flag. */
  public synchronized void removeHints(ObjectKey service, String addressType) {
    var byType = allocatedByService.get(service);
    if (byType != null) {
      byType.remove(addressType);
      if (byType.isEmpty()) {
        allocatedByService.remove(service);
      }
    }
    populated.remove(service);
  }

  public synchronized boolean hasPopulatedHints(ObjectKey service) {
    return populated.contains(service);
  }

  /** The allocation last recorded for a Service and address type; empty when there is none. */
  public synchronized SortedMap<String, Integer> allocatedByZone(
      ObjectKey service, String addressType) {
    var byType = allocatedByService.get(service);
    var allocated = byType == null ? null : byType.get(addressType);
    return allocated == null ? Collections.emptySortedMap() : allocated;
  }

  /**
   * Upstream's GetOverloadedServices, in key order: the Services with an address type that {@link
   * Overload#serviceOverloaded} under the current ratios. Call it after {@link #setNodes} and
   * re-queue what it returns.
   */
  public synchronized List<ObjectKey> overloadedServices() {
    var overloaded = new ArrayList<ObjectKey>();
    allocatedByService.forEach(
        (service, byType) -> {
          if (byType.values().stream()
              .anyMatch(allocated -> Overload.serviceOverloaded(ratios, allocated))) {
            overloaded.add(service);
          }
        });
    return overloaded;
  }
}
