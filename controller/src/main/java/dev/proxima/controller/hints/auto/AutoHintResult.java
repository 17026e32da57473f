package dev.proxima.controller.hints.auto;

import dev.proxima.controller.events.PlannedEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the Auto heuristic decided for one Service and address type.
 *
 * @param slices the lists to write, with copies of every slice whose hints were set or cleared
 * @param events the Events to record on the Service, in order
 * @param allocatedByZone zone to the number of ready endpoints hinted to it: what upstream keeps in
 *     endpointsByService for the overload check; empty when hints were removed
 * @param hintsPopulated true when hints were written, false when they were all removed
 */
public record AutoHintResult(
    SlicePlan slices,
    List<PlannedEvent> events,
    SortedMap<String, Integer> allocatedByZone,
    boolean hintsPopulated) {
  public AutoHintResult {
    Objects.requireNonNull(slices, "slices");
    events = List.copyOf(events);
    allocatedByZone = Collections.unmodifiableSortedMap(new TreeMap<>(allocatedByZone));
  }

  public List<EndpointSlice> toCreate() {
    return slices.toCreate();
  }

  public List<EndpointSlice> toUpdate() {
    return slices.toUpdate();
  }

  public List<EndpointSlice> unchanged() {
    return slices.unchanged();
  }
}
