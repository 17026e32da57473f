package dev.proxima.controller.metrics;

import dev.proxima.cli.BuildInfo;
import dev.proxima.controller.hints.RemovalReasons;
import dev.proxima.controller.queue.WorkQueueMetrics;
import dev.proxima.model.ObjectKey;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The controller's metrics, registered on an injected registry. Names follow
 * kube-controller-manager's EndpointSlice controller where it has one, so existing dashboards keep
 * working; Proxima's own additions are prefixed {@code proxima_controller_}.
 */
public final class ControllerMetrics {
  public static final String QUEUE_NAME = "proxima_hints";

  private final UpstreamCounter syncs;
  private final UpstreamCounter changes;
  private final Histogram changedPerSync;
  private final Map<ObjectKey, String> trafficDistributionByService = new ConcurrentHashMap<>();
  private final Map<ObjectKey, String> modeByService = new ConcurrentHashMap<>();
  private final Map<ObjectKey, String> hintsDisabledByService = new ConcurrentHashMap<>();
  private final Counter hintRemovals;
  private final Histogram reconcileDuration;
  private final Counter hintWrites;
  private final Counter hintsOverwritten;
  private final Counter conditionWrites;
  private final Gauge queueDepth;
  private final Counter queueAdds;
  private final Counter queueRetries;
  private final Histogram queueLatency;
  private final Histogram workDuration;
  private final Gauge leader;

  /**
   * Families the metrics endpoint writes besides the registry's: {@code
   * endpoint_slice_controller_changes_total}, the name kube-controller-manager 1.38 emits beside
   * the suffix-less one.
   */
  public java.util.List<dev.proxima.http.StreamedFamily> streamedFamilies() {
    return java.util.List.of(changes.withTotalSuffix());
  }

  public ControllerMetrics(PrometheusRegistry registry) {
    BuildInfo.current().register(registry);
    syncs =
        UpstreamCounter.register(
            registry,
            "endpoint_slice_controller_syncs",
            "Number of Service syncs by result (success, stale, error).",
            "result");
    // Every result from the start, so a rate over the error series reads 0 rather than nothing.
    List.of("success", "stale", "error").forEach(syncs::declare);
    changes =
        UpstreamCounter.register(
            registry,
            "endpoint_slice_controller_changes",
            "Number of EndpointSlice writes by operation.",
            "operation");
    changedPerSync =
        Histogram.builder()
            .name("endpoint_slice_controller_endpointslices_changed_per_sync")
            .help("Number of EndpointSlices written per Service sync.")
            .labelNames("topology", "traffic_distribution")
            .classicOnly()
            .register(registry);
    GaugeWithCallback.builder()
        .name("endpoint_slice_controller_services_count_by_traffic_distribution")
        .help("Number of Services whose hints come from each trafficDistribution value.")
        .labelNames("traffic_distribution")
        .callback(
            callback ->
                countsByTrafficDistribution()
                    .forEach((value, count) -> callback.call(count, value)))
        .register(registry);
    GaugeWithCallback.builder()
        .name("proxima_controller_services_by_hint_mode")
        .help("Services by what decides their hints: Auto, a trafficDistribution value, or None.")
        .labelNames("mode")
        .callback(
            callback ->
                countsOf(modeByService).forEach((mode, count) -> callback.call(count, mode)))
        .register(registry);
    GaugeWithCallback.builder()
        .name("proxima_controller_services_hints_disabled")
        .help(
            "Services that ask for hints but are planned without them (or, under a trafficDistribution value, with endpoints left unhinted), by reason; every reason is exported, 0 when none.")
        .labelNames("reason")
        .callback(
            callback -> {
              var counts = countsOf(hintsDisabledByService);
              for (var reason : RemovalReasons.SHORTFALLS) {
                callback.call(counts.getOrDefault(reason, 0L), reason);
              }
            })
        .register(registry);
    hintRemovals =
        Counter.builder()
            .name("proxima_controller_hint_removals_total")
            .help(
                "Syncs that removed a Service's hints, by reason (Auto safeguards, value removed or unsupported, Auto switched off).")
            .labelNames("reason")
            .register(registry);
    reconcileDuration =
        Histogram.builder()
            .name("proxima_controller_reconcile_duration_seconds")
            .help("Time to reconcile the hints of one Service, API writes included.")
            .classicExponentialUpperBounds(0.001, 2, 15)
            .register(registry);
    hintWrites =
        Counter.builder()
            .name("proxima_controller_hint_writes_total")
            .help("EndpointSlice hint writes by result (success, conflict, not_found, error).")
            .labelNames("result")
            .register(registry);
    hintsOverwritten =
        Counter.builder()
            .name("proxima_controller_hints_overwritten_total")
            .help("Times another writer kept reverting Proxima's hints and Proxima backed off.")
            .register(registry);
    conditionWrites =
        Counter.builder()
            .name("proxima_controller_service_condition_writes_total")
            .help("Patches of a Service's status conditions (only sent when one changed).")
            .register(registry);
    leader =
        Gauge.builder()
            .name("proxima_controller_leader")
            .help("1 while this replica holds the leader Lease and may write, 0 otherwise.")
            .register(registry);
    queueDepth =
        Gauge.builder()
            .name("workqueue_depth")
            .help("Current depth of the work queue.")
            .labelNames("name")
            .register(registry);
    queueAdds =
        Counter.builder()
            .name("workqueue_adds_total")
            .help("Total number of adds handled by the work queue.")
            .labelNames("name")
            .register(registry);
    queueRetries =
        Counter.builder()
            .name("workqueue_retries_total")
            .help("Total number of rate-limited retries handled by the work queue.")
            .labelNames("name")
            .register(registry);
    queueRetries.labelValues(QUEUE_NAME);
    queueLatency =
        Histogram.builder()
            .name("workqueue_queue_duration_seconds")
            .help("How long a key waits in the work queue before a worker takes it.")
            .labelNames("name")
            .classicExponentialUpperBounds(0.001, 4, 10)
            .register(registry);
    workDuration =
        Histogram.builder()
            .name("workqueue_work_duration_seconds")
            .help("How long processing a key from the work queue takes.")
            .labelNames("name")
            .classicExponentialUpperBounds(0.001, 4, 10)
            .register(registry);
  }

  public void syncFinished(String result) {
    syncs.inc(result);
  }

  public long syncs(String result) {
    return syncs.get(result);
  }

  public void sliceWritten(String result) {
    hintWrites.labelValues(result).inc();
    if ("success".equals(result)) {
      changes.inc("update");
    }
  }

  public void slicesChanged(String topology, String trafficDistribution, int count) {
    changedPerSync.labelValues(topology, trafficDistribution).observe(count);
  }

  public void reconciled(Duration elapsed) {
    reconcileDuration.observe(elapsed.toNanos() / 1e9);
  }

  public void conditionsWritten() {
    conditionWrites.inc();
  }

  public void hintsOverwritten() {
    hintsOverwritten.inc();
  }

  public void leading(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
  }

  /** Records the value deciding a Service's hints; an empty value removes it from the counts. */
  public void serviceTrafficDistribution(ObjectKey service, String trafficDistribution) {
    if (trafficDistribution == null || trafficDistribution.isEmpty()) {
      trafficDistributionByService.remove(service);
    } else {
      trafficDistributionByService.put(service, trafficDistribution);
    }
  }

  public void serviceDeleted(ObjectKey service) {
    trafficDistributionByService.remove(service);
    modeByService.remove(service);
    hintsDisabledByService.remove(service);
  }

  /**
   * Why a Service goes without the hints it asks for now, or null when it has them or asks for
   * none; a reason outside {@link RemovalReasons#SHORTFALLS} counts as its {@code Other}.
   */
  public void serviceHintsDisabled(ObjectKey service, String reason) {
    if (reason == null) {
      hintsDisabledByService.remove(service);
    } else {
      hintsDisabledByService.put(
          service, RemovalReasons.SHORTFALLS.contains(reason) ? reason : "Other");
    }
  }

  public void serviceMode(ObjectKey service, String mode) {
    modeByService.put(service, mode);
  }

  public void hintsRemoved(String reason) {
    hintRemovals.labelValues(reason).inc();
  }

  private Map<String, Long> countsByTrafficDistribution() {
    return countsOf(trafficDistributionByService);
  }

  private static Map<String, Long> countsOf(Map<ObjectKey, String> valueByService) {
    return valueByService.values().stream()
        .collect(Collectors.groupingBy(value -> value, TreeMap::new, Collectors.counting()));
  }

  /** Feeds the work queue's events into the client-go style workqueue metrics. */
  public WorkQueueMetrics workQueue() {
    return new WorkQueueMetrics() {
      @Override
      public void added() {
        queueAdds.labelValues(QUEUE_NAME).inc();
      }

      @Override
      public void depth(int depth) {
        queueDepth.labelValues(QUEUE_NAME).set(depth);
      }

      @Override
      public void retried() {
        queueRetries.labelValues(QUEUE_NAME).inc();
      }

      @Override
      public void queueLatency(Duration latency) {
        queueLatency.labelValues(QUEUE_NAME).observe(latency.toNanos() / 1e9);
      }

      @Override
      public void workDuration(Duration duration) {
        workDuration.labelValues(QUEUE_NAME).observe(duration.toNanos() / 1e9);
      }
    };
  }
}
