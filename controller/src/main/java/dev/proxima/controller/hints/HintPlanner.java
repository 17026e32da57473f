package dev.proxima.controller.hints;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.auto.AutoHintCache;
import dev.proxima.controller.hints.auto.AutoHintEvents;
import dev.proxima.controller.hints.auto.SliceInfo;
import dev.proxima.controller.hints.auto.ZoneCpuRatios;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.TopologyMode;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Computes the hints of one Service's EndpointSlices exactly as kube-controller-manager would, so
 * both controllers can touch the same slice without flapping: the topology-mode Auto heuristic when
 * the annotation enables it, otherwise upstream's trafficdist reconciler.
 *
 * <p>It never mutates its inputs, which may be informer-cache objects, and does no I/O. The only
 * state it touches is the {@link AutoHintCache}: the zone ratios and which Services have Auto
 * hints, which upstream keeps between syncs too.
 */
public final class HintPlanner {
  static final String FQDN = "FQDN";
  private static final List<String> ADDRESS_TYPES = List.of("IPv4", "IPv6");

  private final AutoHintCache autoHints;
  private final SliceScope scope;

  /**
   * @param scope which slices Proxima writes; slices outside it are planned (to tell whether they
   *     already carry the hints) but left to kube-controller-manager
   */
  public HintPlanner(AutoHintCache autoHints, SliceScope scope) {
    this.autoHints = autoHints;
    this.scope = scope;
  }

  public HintPlanner(AutoHintCache autoHints) {
    this(autoHints, SliceScope.ALL);
  }

  public SliceScope scope() {
    return scope;
  }

  /** The zone CPU ratios the Auto heuristic allocates by, which are also the zones' demand. */
  public ZoneCpuRatios zoneCpuRatios() {
    return autoHints.ratios();
  }

  /** A planner whose Auto state knows no Nodes: Auto Services get no hints from it. */
  public HintPlanner() {
    this(new AutoHintCache());
  }

  public HintPlan plan(Service service, List<EndpointSlice> slices) {
    var key = new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName());
    var spec = service.getSpec();
    var trafficDistribution =
        TrafficDistribution.parse(spec == null ? null : spec.getTrafficDistribution());
    var events = new ArrayList<PlannedEvent>();
    var skipped = new ArrayList<HintPlan.SkippedSlice>();
    var inScope = inScope(slices, skipped);

    if (TopologyMode.autoEnabled(service.getMetadata().getAnnotations())) {
      // Auto outranks the field upstream, so the field is not even looked at.
      var updates = new ArrayList<EndpointSlice>();
      var removals = new ArrayList<String>();
      java.util.Optional<HintPlan.Shortfall> shortfall = java.util.Optional.empty();
      for (var addressType : ADDRESS_TYPES) {
        var ofType = inScope.stream().filter(s -> addressType.equals(s.getAddressType())).toList();
        if (ofType.isEmpty()) {
          continue;
        }
        var result = autoHints.addHints(withoutNodeHints(key, addressType, ofType));
        updates.addAll(result.toUpdate());
        events.addAll(result.events());
        var warning =
            result.events().stream().filter(e -> e.type() == PlannedEvent.Type.Warning).findFirst();
        if (!result.hintsPopulated() && !result.toUpdate().isEmpty()) {
          warning.ifPresent(e -> removals.add(RemovalReasons.of(e.message())));
        }
        if (!result.hintsPopulated() && shortfall.isEmpty()) {
          // Upstream says why on every sync that finds no hints, so a resync sees the same reason.
          shortfall =
              warning.map(e -> new HintPlan.Shortfall(RemovalReasons.of(e.message()), e.message()));
        }
      }
      updates.sort(Comparator.comparing(slice -> slice.getMetadata().getName()));
      var leftToKcm = leaveToKcm(updates, HintMode.AUTO, trafficDistribution);
      return new HintPlan(
          key,
          HintMode.AUTO,
          trafficDistribution,
          updates,
          skipped,
          events,
          removals,
          leftToKcm,
          shortfall);
    }

    var removals = new ArrayList<String>();
    boolean switchedOffAuto = false;
    for (var addressType : ADDRESS_TYPES) {
      // Leaving Auto: upstream says so once, then forgets the Service's allocations.
      if (autoHints.hasPopulatedHints(key)) {
        events.add(AutoHintEvents.autoSwitchedOff(key, addressType));
        switchedOffAuto = true;
      }
      autoHints.removeHints(key, addressType);
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
    for (var slice : inScope) {
      if (slice.getEndpoints() != null && heuristic.needsUpdate(slice.getEndpoints())) {
        var copy = new EndpointSliceBuilder(slice).build();
        heuristic.apply(copy.getEndpoints());
        updates.add(copy);
      }
    }
    var leftToKcm = leaveToKcm(updates, mode, trafficDistribution);
    if (mode == HintMode.NONE && !updates.isEmpty()) {
      removals.add(
          switchedOffAuto
              ? RemovalReasons.AUTO_DISABLED
              : trafficDistribution.kind() == TrafficDistribution.Kind.UNSUPPORTED
                  ? RemovalReasons.UNSUPPORTED_TRAFFIC_DISTRIBUTION
                  : RemovalReasons.NO_HINT_SOURCE);
    }
    return new HintPlan(
        key,
        mode,
        trafficDistribution,
        updates,
        skipped,
        events,
        removals,
        leftToKcm,
        mode == HintMode.TRAFFIC_DISTRIBUTION ? zonelessShortfall(inScope) : Optional.empty());
  }

  /**
   * Takes the slices kube-controller-manager is to write out of {@code updates}, and names them.
   */
  private List<String> leaveToKcm(
      List<EndpointSlice> updates, HintMode mode, TrafficDistribution trafficDistribution) {
    var left = new ArrayList<String>();
    updates.removeIf(
        slice -> {
          boolean leave = scope.leavesToKcm(slice, mode, trafficDistribution);
          if (leave) {
            left.add(slice.getMetadata().getName());
          }
          return leave;
        });
    return left;
  }

  /**
   * Ready endpoints without a zone get no zone hint, so proxies in every zone treat them alike; the
   * Service asked for locality it only partly gets.
   */
  private static Optional<HintPlan.Shortfall> zonelessShortfall(List<EndpointSlice> slices) {
    long zoneless =
        slices.stream()
            .filter(slice -> slice.getEndpoints() != null)
            .flatMap(slice -> slice.getEndpoints().stream())
            .filter(HintHeuristic::isReady)
            .filter(endpoint -> endpoint.getZone() == null)
            .count();
    return zoneless == 0
        ? Optional.empty()
        : Optional.of(
            new HintPlan.Shortfall(
                dev.proxima.model.ServiceConditions.ProgrammedReason.NO_ZONE_SPECIFIED,
                zoneless + " ready endpoint(s) have no zone, so they carry no zone hint"));
  }

  /**
   * Auto never writes {@code forNodes}, but node hints left from PreferSameNode would keep proxies
   * routing per node. Slices carrying any are handed to Auto as slices to rewrite, not as valid
   * existing ones; kube-controller-manager ignores node hints under Auto, so it accepts the result.
   */
  private static SliceInfo withoutNodeHints(
      ObjectKey key, String addressType, List<EndpointSlice> slices) {
    var rewrite = new ArrayList<EndpointSlice>();
    var unchanged = new ArrayList<EndpointSlice>();
    for (var slice : slices) {
      var endpoints =
          slice.getEndpoints() == null
              ? List.<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint>of()
              : slice.getEndpoints();
      boolean hasNodeHints =
          endpoints.stream()
              .anyMatch(
                  e ->
                      e.getHints() != null
                          && e.getHints().getForNodes() != null
                          && !e.getHints().getForNodes().isEmpty());
      if (!hasNodeHints) {
        unchanged.add(slice);
        continue;
      }
      var copy = new EndpointSliceBuilder(slice).build();
      copy.getEndpoints().stream()
          .filter(e -> e.getHints() != null)
          .forEach(e -> e.getHints().setForNodes(null));
      rewrite.add(copy);
    }
    return new SliceInfo(key, addressType, List.of(), rewrite, unchanged);
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
