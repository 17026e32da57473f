package dev.proxima.controller.hints;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.TopologyMode;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Computes the hints of one Service's EndpointSlices, exactly as kube-controller-manager's
 * trafficdist reconciler would, so both controllers can touch the same slice without flapping.
 *
 * <p>Pure: it reads the Service and its slices and returns a {@link HintPlan}; it never mutates its
 * inputs, which may be informer-cache objects.
 */
public final class HintPlanner {
  static final String FQDN = "FQDN";

  public HintPlan plan(Service service, List<EndpointSlice> slices) {
    var key = new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName());
    var spec = service.getSpec();
    var trafficDistribution =
        TrafficDistribution.parse(spec == null ? null : spec.getTrafficDistribution());
    var events = new ArrayList<PlannedEvent>();
    var skipped = new ArrayList<HintPlan.SkippedSlice>();

    if (TopologyMode.autoEnabled(service.getMetadata().getAnnotations())) {
      // Auto outranks the field upstream. Until Proxima implements Auto, leaving the slices alone
      // is the only choice that neither fights kube-controller-manager nor writes field hints.
      inScope(slices, skipped)
          .forEach(slice -> skipped.add(skip(slice, "topology-mode Auto is not implemented yet")));
      return new HintPlan(key, HintMode.AUTO, trafficDistribution, List.of(), skipped, events);
    }

    HintMode mode;
    HintHeuristic heuristic;
    if (trafficDistribution.isSupported()) {
      mode = HintMode.TRAFFIC_DISTRIBUTION;
      heuristic = new SameTopologyHints(trafficDistribution.prefersSameNode());
    } else {
      mode = HintMode.NONE;
      heuristic = ClearHints.INSTANCE;
      if (trafficDistribution.kind() == TrafficDistribution.Kind.UNSUPPORTED) {
        events.add(
            PlannedEvent.warning(
                key,
                EventReasons.UNSUPPORTED_TRAFFIC_DISTRIBUTION,
                "spec.trafficDistribution \""
                    + trafficDistribution.raw()
                    + "\" is not supported (PreferSameZone, PreferSameNode or PreferClose);"
                    + " routing stays cluster-wide and hints are removed"));
      }
    }

    var updates = new ArrayList<EndpointSlice>();
    for (var slice : inScope(slices, skipped)) {
      if (slice.getEndpoints() != null && heuristic.needsUpdate(slice.getEndpoints())) {
        var copy = new EndpointSliceBuilder(slice).build();
        heuristic.apply(copy.getEndpoints());
        updates.add(copy);
      }
    }
    return new HintPlan(key, mode, trafficDistribution, updates, skipped, events);
  }

  /**
   * The slices hints apply to, in name order so plans are deterministic. Slices being deleted are
   * dropped as upstream drops them; FQDN slices are never hinted upstream and proxies ignore them.
   */
  private static List<EndpointSlice> inScope(
      List<EndpointSlice> slices, List<HintPlan.SkippedSlice> skipped) {
    var result = new ArrayList<EndpointSlice>();
    for (var slice : slices) {
      if (slice.getMetadata().getDeletionTimestamp() != null) {
        skipped.add(skip(slice, "being deleted"));
      } else if (FQDN.equals(slice.getAddressType())) {
        skipped.add(skip(slice, "addressType FQDN carries no topology hints"));
      } else {
        result.add(slice);
      }
    }
    result.sort(Comparator.comparing(slice -> slice.getMetadata().getName()));
    return result;
  }

  private static HintPlan.SkippedSlice skip(EndpointSlice slice, String reason) {
    return new HintPlan.SkippedSlice(slice.getMetadata().getName(), reason);
  }
}
