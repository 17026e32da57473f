package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code proxima_proxy_connections_total{locality}} and {@code
 * proxima_proxy_connections_without_endpoints_total}, and per counted Service port {@code
 * proxima_proxy_service_connections_total{namespace,service,port,locality}}, read from the kernel's
 * counters when scraped: one read per family per scrape, nothing between scrapes. A Service port's
 * series go when it stops being counted (it stops opting in, goes, or the cap leaves it out).
 *
 * <p>The exposed values never go down. The kernel's counters restart at zero when the table is
 * created anew (the first sync after a start, or after another tool deleted it); what they had
 * counted until then is kept and added on. A family whose read fails keeps its last values, so a
 * failed read shows as a flat line rather than a reset, and is counted in {@code
 * proxima_proxy_connection_counter_read_failures_total}.
 */
public final class ConnectionLocalityMetrics implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLocalityMetrics.class);
  static final String CONNECTIONS = "proxima_proxy_connections";
  static final String WITHOUT_ENDPOINTS = "proxima_proxy_connections_without_endpoints";
  static final String READ_FAILURES = "proxima_proxy_connection_counter_read_failures";
  static final String NODE_ZONE = "proxima_proxy_node_zone";
  static final String SERVICE_CONNECTIONS = "proxima_proxy_service_connections";

  private final Map<String, Supplier<Optional<ConnectionCounts>>> sources;
  private final Supplier<String> nodeZone;
  private final Map<String, Monotonic> families = new LinkedHashMap<>();
  private long readFailures;

  /**
   * @param sources each family's reader (label to reader); each call reads the kernel once
   */
  public ConnectionLocalityMetrics(
      Map<String, Supplier<Optional<ConnectionCounts>>> sources, Supplier<String> nodeZone) {
    this.sources = Map.copyOf(sources);
    this.nodeZone = nodeZone;
    sources.keySet().forEach(family -> families.put(family, new Monotonic()));
  }

  public static ConnectionLocalityMetrics register(
      PrometheusRegistry registry,
      Map<String, Supplier<Optional<ConnectionCounts>>> sources,
      Supplier<String> nodeZone) {
    var metrics = new ConnectionLocalityMetrics(sources, nodeZone);
    registry.register(metrics);
    return metrics;
  }

  /**
   * Each counted Service port's connections by locality, summed over the families, as the metric
   * shows them: read from the kernel now, once per family, like a scrape.
   */
  public synchronized Map<ServicePortName, Map<Locality, Long>> readServicePorts() {
    var ports = new java.util.TreeMap<ServicePortName, Map<Locality, Long>>();
    read().byServicePort().forEach((port, counts) -> ports.put(port, Map.copyOf(counts)));
    return ports;
  }

  /** Scrapes may overlap (two Prometheus servers); one reads the kernel at a time. */
  @Override
  public synchronized MetricSnapshots collect() {
    var totals = read();
    var byLocality = totals.byLocality();
    var byServicePort = totals.byServicePort();
    long withoutEndpoints = totals.withoutEndpoints();
    var services =
        CounterSnapshot.builder()
            .name(SERVICE_CONNECTIONS)
            .help(
                "New connections to a counted Service port (annotated proxima.dev/observe-locality:"
                    + " \"true\", or all with --observe-locality=all) by where the chosen"
                    + " endpoint is; NodePort connections are not counted per Service");
    byServicePort.forEach(
        (port, counts) -> {
          for (var locality : Locality.values()) {
            services.dataPoint(
                point(
                    counts.getOrDefault(locality, 0L),
                    "namespace",
                    port.service().namespace(),
                    "service",
                    port.service().name(),
                    "port",
                    port.port(),
                    "locality",
                    locality.label()));
          }
        });
    var connections =
        CounterSnapshot.builder()
            .name(CONNECTIONS)
            .help(
                "New connections the proxy's rules dispatched, by where the chosen endpoint is:"
                    + " node, zone (same zone, other node), other-zone, unknown (no zone known)");
    for (var locality : Locality.values()) {
      connections.dataPoint(point(byLocality.get(locality), "locality", locality.label()));
    }
    return MetricSnapshots.of(
        connections.build(),
        services.build(),
        CounterSnapshot.builder()
            .name(WITHOUT_ENDPOINTS)
            .help("New connections dropped or rejected because their Service had no endpoints")
            .dataPoint(point(withoutEndpoints))
            .build(),
        CounterSnapshot.builder()
            .name(READ_FAILURES)
            .help("Scrapes that could not read one family's connection counters from the kernel")
            .dataPoint(point(readFailures))
            .build(),
        GaugeSnapshot.builder()
            .name(NODE_ZONE)
            .help(
                "Always 1, labelled with this node's zone (empty when the Node has none): join on"
                    + " instance to see connections from zone to zone")
            .dataPoint(
                GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("zone", zoneNow()))
                    .value(1)
                    .build())
            .build());
  }

  /** Every family read once, added up: the totals as the metrics show them. */
  private ConnectionCounts read() {
    var byLocality = new EnumMap<Locality, Long>(Locality.class);
    var byServicePort = new java.util.TreeMap<ServicePortName, Map<Locality, Long>>();
    long withoutEndpoints = 0;
    for (var entry : families.entrySet()) {
      Optional<ConnectionCounts> read;
      try {
        read = sources.get(entry.getKey()).get();
      } catch (RuntimeException e) {
        read = Optional.empty();
      }
      if (read.isEmpty()) {
        readFailures++;
        LOG.atDebug()
            .addKeyValue("family", entry.getKey())
            .log("Could not read the connection counters; showing the last values");
      }
      var totals = entry.getValue().update(read.orElse(null));
      for (var locality : Locality.values()) {
        byLocality.merge(locality, totals.byLocality().get(locality), Long::sum);
      }
      withoutEndpoints += totals.withoutEndpoints();
      totals
          .byServicePort()
          .forEach(
              (port, counts) -> {
                var sum = byServicePort.computeIfAbsent(port, p -> new EnumMap<>(Locality.class));
                counts.forEach((locality, count) -> sum.merge(locality, count, Long::sum));
              });
    }
    return new ConnectionCounts(byLocality, withoutEndpoints, byServicePort);
  }

  private String zoneNow() {
    var zone = nodeZone.get();
    return zone == null ? "" : zone;
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(CONNECTIONS, SERVICE_CONNECTIONS, WITHOUT_ENDPOINTS, READ_FAILURES, NODE_ZONE);
  }

  private static CounterSnapshot.CounterDataPointSnapshot point(long value, String... labels) {
    return CounterSnapshot.CounterDataPointSnapshot.builder()
        .labels(labels.length == 0 ? Labels.EMPTY : Labels.of(labels))
        .value(value)
        .build();
  }

  /**
   * One family's totals, kept from going down when the kernel's counters restart. Each Service
   * port's are kept on their own: its counters restart when it stops being counted and starts
   * again, or with the table; a port the latest read lacks is forgotten, and its series go.
   */
  private static final class Monotonic {
    private ConnectionCounts last = new ConnectionCounts(Map.of(), 0);
    private ConnectionCounts carried = new ConnectionCounts(Map.of(), 0);
    private Map<ServicePortName, Map<Locality, Long>> portCarried = Map.of();

    ConnectionCounts update(ConnectionCounts read) {
      if (read != null) {
        boolean restarted = read.withoutEndpoints() < last.withoutEndpoints();
        for (var locality : Locality.values()) {
          restarted |= read.byLocality().get(locality) < last.byLocality().get(locality);
        }
        if (restarted) {
          carried = sum(carried, last);
        }
        var ports = new java.util.HashMap<ServicePortName, Map<Locality, Long>>();
        read.byServicePort()
            .forEach(
                (port, counts) -> {
                  var before = last.byServicePort().get(port);
                  var kept = portCarried.getOrDefault(port, Map.of());
                  if (before != null && goesDown(counts, before)) {
                    kept = add(kept, before);
                  }
                  ports.put(port, kept);
                });
        portCarried = ports;
        last = read;
      }
      var totals = sum(carried, last);
      var byPort = new java.util.HashMap<ServicePortName, Map<Locality, Long>>();
      last.byServicePort()
          .forEach(
              (port, counts) ->
                  byPort.put(port, add(portCarried.getOrDefault(port, Map.of()), counts)));
      return new ConnectionCounts(totals.byLocality(), totals.withoutEndpoints(), byPort);
    }

    private static boolean goesDown(Map<Locality, Long> now, Map<Locality, Long> before) {
      for (var locality : Locality.values()) {
        if (now.getOrDefault(locality, 0L) < before.getOrDefault(locality, 0L)) {
          return true;
        }
      }
      return false;
    }

    private static Map<Locality, Long> add(Map<Locality, Long> a, Map<Locality, Long> b) {
      var sum = new EnumMap<Locality, Long>(Locality.class);
      for (var locality : Locality.values()) {
        sum.put(locality, a.getOrDefault(locality, 0L) + b.getOrDefault(locality, 0L));
      }
      return sum;
    }

    private static ConnectionCounts sum(ConnectionCounts a, ConnectionCounts b) {
      var byLocality = new EnumMap<Locality, Long>(Locality.class);
      for (var locality : Locality.values()) {
        byLocality.put(locality, a.byLocality().get(locality) + b.byLocality().get(locality));
      }
      return new ConnectionCounts(byLocality, a.withoutEndpoints() + b.withoutEndpoints());
    }
  }
}
