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

  /** Exports the series of {@code labelValue} at 0 until it is first counted. */
  public void declare(String labelValue) {
    values.computeIfAbsent(labelValue, value -> new LongAdder());
  }

  public void inc(String labelValue) {
    values.computeIfAbsent(labelValue, value -> new LongAdder()).increment();
  }

  public long get(String labelValue) {
    var adder = values.get(labelValue);
    return adder == null ? 0 : adder.sum();
  }

  /**
   * The same values under {@code name + "_total"} as well, as upstream emits some of these since
   * Kubernetes 1.38. client_java cannot hold both names in one registry (a counter named X is
   * exposed as X_total, and the registry refuses a second family X), so this family is written
   * straight into the text formats: a counter in Prometheus text, an unknown-typed family in
   * OpenMetrics (where the counter family X would collide with the suffix-less one). The protocol
   * buffer format carries only the suffix-less family.
   */
  public dev.proxima.http.StreamedFamily withTotalSuffix() {
    var total = name + "_total";
    return new dev.proxima.http.StreamedFamily() {
      @Override
      public String name() {
        return total;
      }

      @Override
      public void write(dev.proxima.http.SeriesWriter out) throws java.io.IOException {
        if (out.format() == dev.proxima.http.SeriesWriter.Format.TEXT) {
          out.counter(name, help);
        } else {
          out.unknown(total, help);
        }
        for (var entry : new java.util.TreeMap<>(values).entrySet()) {
          out.sample(total, entry.getValue().sum(), labelName, entry.getKey());
        }
      }

      @Override
      public MetricSnapshot snapshot() {
        return collect();
      }
    };
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
