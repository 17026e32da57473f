package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * The three lists upstream's reconciler hands between its steps, after hints were decided.
 *
 * @param toCreate copies of the slices to create, carrying their hints
 * @param toUpdate copies of the slices to update; slices that were unchanged but needed different
 *     hints are appended after the ones the caller passed
 * @param unchanged the unchanged slices that may stay as they are, as the caller passed them
 */
public record SlicePlan(
    List<EndpointSlice> toCreate, List<EndpointSlice> toUpdate, List<EndpointSlice> unchanged) {
  public SlicePlan {
    toCreate = List.copyOf(toCreate);
    toUpdate = List.copyOf(toUpdate);
    unchanged = List.copyOf(unchanged);
  }
}
