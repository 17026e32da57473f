package dev.proxima.controller.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A monotonic counter exposed under a name without the {@code _total} suffix.
 *
 * <p>kube-controller-manager exposes {@code endpoint_slice_controller_syncs} and {@code
 * ..._changes} with no suffix, and client_java 1.x appends {@code _total} to every counter. To keep
 * dashboards and alerts written for upstream working unchanged, these two are exposed untyped under
 * upstream's exact name; {@code rate()} and {@code increase()} work on them as on any counter.
 */
public final class UpstreamCounter implements Collector {
  private final String name;
  private final String help;
  private final String labelName;
  private final Map<String, LongAdder> values = new ConcurrentHashMap<>();

  private UpstreamCounter(String name, String help, String labelName) {
    this.name = name;
    this.help = help;
    this.labelName = labelName;
  }

  public static UpstreamCounter register(
      PrometheusRegistry registry, String name, String help, String labelName) {
    var counter = new UpstreamCounter(name, help, labelName);
    registry.register(counter);
    return counter;
  }

  public void inc(String labelValue) {
    values.computeIfAbsent(labelValue, value -> new LongAdder()).increment();
  }

  public long get(String labelValue) {
    var adder = values.get(labelValue);
    return adder == null ? 0 : adder.sum();
  }

  @Override
  public MetricSnapshot collect() {
    var builder = UnknownSnapshot.builder().name(name).help(help);
    values.forEach(
        (labelValue, adder) ->
            builder.dataPoint(
                UnknownSnapshot.UnknownDataPointSnapshot.builder()
                    .labels(Labels.of(labelName, labelValue))
                    .value(adder.sum())
                    .build()));
    return builder.build();
  }

  @Override
  public String getPrometheusName() {
    return name;
  }
}
