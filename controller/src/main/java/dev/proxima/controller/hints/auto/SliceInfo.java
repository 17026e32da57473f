package dev.proxima.controller.hints.auto;

import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Objects;

/**
 * Upstream's SliceInfo: one Service's slices of one address type, split the way the reconciler
 * split them. The slices may be informer-cache objects; nothing in this package mutates them.
 *
 * @param addressType {@code IPv4} or {@code IPv6}, as in {@code EndpointSlice.addressType}
 */
public record SliceInfo(
    ObjectKey service,
    String addressType,
    List<EndpointSlice> toCreate,
    List<EndpointSlice> toUpdate,
    List<EndpointSlice> unchanged) {
  public SliceInfo {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(addressType, "addressType");
    toCreate = toCreate == null ? List.of() : List.copyOf(toCreate);
    toUpdate = toUpdate == null ? List.of() : List.copyOf(toUpdate);
    unchanged = unchanged == null ? List.of() : List.copyOf(unchanged);
  }

  /** Upstream's getTotalReadyEndpoints: ready endpoints across all three lists. */
  public int totalReadyEndpoints() {
    int total = 0;
    for (var list : List.of(toCreate, toUpdate, unchanged)) {
      for (var slice : list) {
        total += EndpointFacts.readyCount(slice);
      }
    }
    return total;
  }
}
