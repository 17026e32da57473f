package dev.proxima.controller.plan;

import dev.proxima.controller.conditions.ConditionMerge;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.hints.auto.AutoHintCache;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.ClusterView;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.reconcile.ServiceReconciler;
import dev.proxima.controller.reconcile.ServiceStatusWriter;
import dev.proxima.controller.reconcile.SliceOwnership;
import dev.proxima.controller.reconcile.SliceWriter;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.state.ClusterState;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Runs the live controller's reconciler over a state file instead of an API server: its writes land
 * in memory and its Events are collected. The result is what the controller would leave behind.
 */
public final class OfflinePlan {
  /**
   * @param endpointSlices every slice of the state, in file order, as the controller leaves it
   * @param notes what was left alone and why, for stderr
   * @param conditions Proxima's conditions each Service would carry afterwards, by Service, for the
   *     Services that would carry any
   */
  public record Result(
      List<EndpointSlice> endpointSlices,
      List<PlannedEvent> events,
      List<String> notes,
      Map<ObjectKey, List<Condition>> conditions) {}

  private OfflinePlan() {}

  /** Plans as {@code --slices=all}: every slice is Proxima's to write. */
  public static Result run(ClusterState state) {
    return run(state, SliceScope.ALL, Clock.systemUTC());
  }

  public static Result run(ClusterState state, SliceScope scope, Clock clock) {
    var view = new StateView(state);
    var autoHints = new AutoHintCache();
    autoHints.setNodes(state.nodes());
    var events = new ArrayList<PlannedEvent>();
    var notes = new ArrayList<String>(state.ignored());
    var written = new LinkedHashMap<String, EndpointSlice>();
    SliceWriter inMemory =
        desired -> {
          written.put(key(desired), desired);
          return desired;
        };
    var writtenConditions = new LinkedHashMap<ObjectKey, List<Condition>>();
    ServiceStatusWriter statusInMemory =
        (service, conditions) -> writtenConditions.put(keyOf(service), conditions);
    var reconciler =
        new ServiceReconciler(
            view,
            inMemory,
            statusInMemory,
            events::add,
            new ControllerMetrics(new PrometheusRegistry()),
            new OverwriteGuard(OverwriteGuard.Policy.DEFAULT, clock),
            new HintPlanner(autoHints, scope),
            clock);

    var serviceKeys = new TreeSet<ObjectKey>();
    state.services().forEach(service -> serviceKeys.add(keyOf(service)));
    serviceKeys.forEach(reconciler::reconcile);

    for (var slice : state.endpointSlices()) {
      var service = SliceOwnership.serviceOf(slice);
      if (service.isEmpty()) {
        notes.add(
            "EndpointSlice "
                + key(slice)
                + " has no "
                + Labels.SERVICE_NAME
                + " label; left unchanged");
      } else if (!serviceKeys.contains(service.get())) {
        notes.add(
            "EndpointSlice "
                + key(slice)
                + " belongs to Service "
                + service.get()
                + ", which is not in the state; left unchanged");
      }
    }
    var result =
        state.endpointSlices().stream()
            .map(slice -> written.getOrDefault(key(slice), slice))
            .toList();
    var conditions = new java.util.TreeMap<ObjectKey, List<Condition>>();
    for (var key : serviceKeys) {
      var service = view.service(key).orElseThrow();
      var stored = service.getStatus() == null ? null : service.getStatus().getConditions();
      var after = ConditionMerge.ours(writtenConditions.getOrDefault(key, stored));
      if (!after.isEmpty()) {
        conditions.put(key, after);
      }
    }
    return new Result(result, events, notes, conditions);
  }

  private static String key(EndpointSlice slice) {
    return slice.getMetadata().getNamespace() + "/" + slice.getMetadata().getName();
  }

  private static ObjectKey keyOf(Service service) {
    return new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName());
  }

  /** The state file seen through the same interface the informer caches offer. */
  private static final class StateView implements ClusterView {
    private final Map<ObjectKey, Service> services = new LinkedHashMap<>();
    private final Map<ObjectKey, List<EndpointSlice>> slicesByService = new LinkedHashMap<>();
    private final List<Node> nodes;

    StateView(ClusterState state) {
      nodes = state.nodes();
      state.services().forEach(service -> services.put(keyOf(service), service));
      for (var slice : state.endpointSlices()) {
        SliceOwnership.serviceOf(slice)
            .ifPresent(
                service ->
                    slicesByService.computeIfAbsent(service, k -> new ArrayList<>()).add(slice));
      }
    }

    @Override
    public Optional<Service> service(ObjectKey key) {
      return Optional.ofNullable(services.get(key));
    }

    @Override
    public List<EndpointSlice> slicesOf(ObjectKey service) {
      return slicesByService.getOrDefault(service, List.of());
    }

    @Override
    public List<Node> nodes() {
      return nodes;
    }
  }
}
