package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;

/**
 * Upstream's RemoveHintsFromSlices: every endpoint of the slices to create or update loses its
 * hints, and every unchanged slice that carries any hints moves to the updates as a copy without
 * them. The reconciler also uses it when a Service asks for neither Auto nor a usable
 * trafficDistribution.
 */
public final class HintRemoval {
  private HintRemoval() {}

  public static SlicePlan removeHintsFromSlices(SliceInfo info) {
    var working = WorkingSlices.copyOf(info);
    apply(working);
    return working.toPlan();
  }

  static void apply(WorkingSlices working) {
    for (var slice : working.allocatable()) {
      EndpointFacts.endpoints(slice).forEach(endpoint -> endpoint.setHints(null));
    }
    var stillUnchanged = new ArrayList<EndpointSlice>();
    for (var slice : working.unchanged) {
      if (EndpointFacts.endpoints(slice).stream()
          .anyMatch(endpoint -> endpoint.getHints() != null)) {
        var copy = WorkingSlices.deepCopy(slice);
        EndpointFacts.endpoints(copy).forEach(endpoint -> endpoint.setHints(null));
        working.toUpdate.add(copy);
      } else {
        stillUnchanged.add(slice);
      }
    }
    working.unchanged = stillUnchanged;
  }
}
