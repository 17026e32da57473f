package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.plan.NodePlanner;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * {@code proxima_proxy_zone_spill_local_fraction{namespace,service,port}}: per Service port whose
 * zone spill-over applies on this node, the share of new connections its zone keeps in-zone, as the
 * rules carry it. Read from the latest loaded plans when scraped. Tenants create Services, so the
 * series are capped like the per-Service locality series ({@code --observe-locality-max-series}):
 * the first ports in namespace, name, port order.
 */
public final class ZoneSpillMetrics implements MultiCollector {
  static final String NAME = "proxima_proxy_zone_spill_local_fraction";
  private static final String HELP =
      "Share of new connections a Service port with proxima.dev/zone-spill-over keeps on the"
          + " endpoints its zone hints chose on this node (1 keeps all), in steps of 0.001";

  private final Supplier<Map<ServicePortName, Integer>> fractions;
  private final int maxSeries;

  /** {@code fractions}: each port's in-zone fraction in thousandths ({@link #of}). */
  public ZoneSpillMetrics(Supplier<Map<ServicePortName, Integer>> fractions, int maxSeries) {
    this.fractions = fractions;
    this.maxSeries = maxSeries;
  }

  /** The fractions of the ports whose spill-over applies, from each family's latest plan. */
  public static Map<ServicePortName, Integer> of(List<NodePlanner.FamilyPlan> plans) {
    // Both families carry the same endpoints; the first family's figure stands for the port.
    var fractions = new TreeMap<ServicePortName, Integer>();
    for (var plan : plans) {
      for (var planned : plan.ports()) {
        if (planned.spill().active()) {
          fractions.putIfAbsent(planned.port().name(), planned.spill().spill().keepPerMille());
        }
      }
    }
    return fractions;
  }

  @Override
  public MetricSnapshots collect() {
    var gauge = GaugeSnapshot.builder().name(NAME).help(HELP);
    var labelled = new HashSet<List<String>>();
    for (var entry : new TreeMap<>(fractions.get()).entrySet()) {
      var name = entry.getKey();
      // One series per port name: a name given to two protocols (which the API refuses) once.
      if (labelled.size() >= maxSeries
          || !labelled.add(List.of(name.service().toString(), name.port()))) {
        continue;
      }
      gauge.dataPoint(
          GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(
                  Labels.of(
                      "namespace",
                      name.service().namespace(),
                      "service",
                      name.service().name(),
                      "port",
                      name.port()))
              .value(entry.getValue() / (double) ZoneSpill.WHOLE)
              .build());
    }
    return MetricSnapshots.of(gauge.build());
  }
}
