package dev.proxima.proxy.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A value that goes up and down but whose upstream name ends in {@code _total}.
 *
 * <p>kube-proxy's {@code sync_proxy_rules_no_local_endpoints_total} is a gauge, and client_java 1.x
 * refuses gauge names with that suffix. Exposing it through a counter snapshot keeps the exact name
 * operators query; its value is still the current count, recomputed every sync, so it should be
 * read as a gauge (no {@code rate()}).
 */
public final class GaugeNamedTotal implements Collector {
  private final String baseName;
  private final String help;
  private final List<String> labelNames;
  private final Map<List<String>, Double> values = new ConcurrentHashMap<>();

  private GaugeNamedTotal(String baseName, String help, List<String> labelNames) {
    this.baseName = baseName;
    this.help = help;
    this.labelNames = List.copyOf(labelNames);
  }

  // The exposition adds _total back to baseName.
  public static GaugeNamedTotal register(
      PrometheusRegistry registry, String baseName, String help, String... labelNames) {
    var metric = new GaugeNamedTotal(baseName, help, List.of(labelNames));
    registry.register(metric);
    return metric;
  }

  public void set(double value, String... labelValues) {
    values.put(List.of(labelValues), value);
  }

  @Override
  public MetricSnapshot collect() {
    var builder = CounterSnapshot.builder().name(baseName).help(help);
    values.forEach(
        (labelValues, value) ->
            builder.dataPoint(
                CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(Labels.of(labelNames, labelValues))
                    .value(value)
                    .build()));
    return builder.build();
  }

  @Override
  public String getPrometheusName() {
    return baseName;
  }
}
