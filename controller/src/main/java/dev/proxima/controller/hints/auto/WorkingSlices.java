package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The planner's scratch copy of a {@link SliceInfo}. The slices to create and update are deep
 * copies, so hints can be written on them in place; unchanged slices stay the caller's objects and
 * are copied only when they move to {@link #toUpdate}.
 */
final class WorkingSlices {
  final List<EndpointSlice> toCreate;
  final List<EndpointSlice> toUpdate;
  List<EndpointSlice> unchanged;

  private WorkingSlices(
      List<EndpointSlice> toCreate, List<EndpointSlice> toUpdate, List<EndpointSlice> unchanged) {
    this.toCreate = toCreate;
    this.toUpdate = toUpdate;
    this.unchanged = unchanged;
  }

  static WorkingSlices copyOf(SliceInfo info) {
    return new WorkingSlices(
        deepCopies(info.toCreate()),
        deepCopies(info.toUpdate()),
        new ArrayList<>(info.unchanged()));
  }

  static EndpointSlice deepCopy(EndpointSlice slice) {
    return new EndpointSliceBuilder(slice).build();
  }

  /** Upstream's allocatable slices: those to create, then those to update, as of now. */
  List<EndpointSlice> allocatable() {
    var all = new ArrayList<EndpointSlice>(toCreate);
    all.addAll(toUpdate);
    return all;
  }

  SlicePlan toPlan() {
    return new SlicePlan(toCreate, toUpdate, unchanged);
  }

  private static List<EndpointSlice> deepCopies(List<EndpointSlice> slices) {
    var copies = new ArrayList<EndpointSlice>(slices.size());
    slices.forEach(slice -> copies.add(deepCopy(slice)));
    return copies;
  }
}
