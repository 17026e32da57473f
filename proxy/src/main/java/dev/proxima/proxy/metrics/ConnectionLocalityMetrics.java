package dev.proxima.proxy.metrics;

import dev.proxima.http.SeriesWriter;
import dev.proxima.http.StreamedFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import dev.proxima.proxy.model.ServicePortName;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>The per-Service family (tens of thousands of series) is not snapshotted: each read keeps
 * arrays ({@link ServicePortCounts}) that the metrics handler streams ({@link
 * #serviceConnections()}) right after the registry's scrape read the kernel ({@link #collect()}).
 *
 * <p>The values never go down: what the kernel counted before its table was created anew is added
 * on, and a family whose read fails keeps its last values (a flat line, not a reset) and counts in
 * {@code proxima_proxy_connection_counter_read_failures_total}.
 */
public final class ConnectionLocalityMetrics implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLocalityMetrics.class);
  static final String CONNECTIONS = "proxima_proxy_connections";
  static final String WITHOUT_ENDPOINTS = "proxima_proxy_connections_without_endpoints";
  static final String READ_FAILURES = "proxima_proxy_connection_counter_read_failures";
  static final String NODE_ZONE = "proxima_proxy_node_zone";
  static final String SERVICE_CONNECTIONS = "proxima_proxy_service_connections";
  private static final String SERVICE_CONNECTIONS_HELP =
      "New connections to a counted Service port (annotated proxima.dev/observe-locality:"
          + " \"true\", or all with --observe-locality=all) by where the chosen"
          + " endpoint is; NodePort connections are not counted per Service";
  private static final Locality[] LOCALITIES = Locality.values();

  private final Map<String, Supplier<Optional<ConnectionCounts>>> sources;
  private final Supplier<String> nodeZone;
  private final Map<String, Monotonic> families = new LinkedHashMap<>();
  private long readFailures;

  /** Each counted port's totals as the latest scrape read them, for the streamed family. */
  private volatile ServicePortCounts exposed = ServicePortCounts.NONE;

  public ConnectionLocalityMetrics(
      Map<String, Supplier<Optional<ConnectionCounts>>> sources, Supplier<String> nodeZone) {
    this.sources = Map.copyOf(sources);
    this.nodeZone = nodeZone;
    sources.keySet().forEach(family -> families.put(family, new Monotonic()));
  }

  /**
   * Each counted Service port's connections by locality, summed over the families, as the metric
   * shows them: read from the kernel now, once per family, like a scrape.
   */
  public synchronized Map<ServicePortName, Map<Locality, Long>> readServicePorts() {
    return read().servicePorts().asMap();
  }

  /** Scrapes may overlap (two Prometheus servers); one reads the kernel at a time. */
  @Override
  public synchronized MetricSnapshots collect() {
    var totals = read();
    var byLocality = totals.byLocality();
    exposed = totals.servicePorts();
    long withoutEndpoints = totals.withoutEndpoints();
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
                    .labels(Labels.of("zone", Objects.requireNonNullElse(nodeZone.get(), "")))
                    .value(1)
                    .build())
            .build());
  }

  /** Every family read once, added up: the totals as the metrics show them. */
  private ConnectionCounts read() {
    var byLocality = new EnumMap<Locality, Long>(Locality.class);
    var servicePorts = ServicePortCounts.NONE;
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
      servicePorts = servicePorts.plus(totals.servicePorts());
    }
    return new ConnectionCounts(byLocality, withoutEndpoints, servicePorts);
  }

  /**
   * {@code proxima_proxy_service_connections_total}, written from the figures of the latest scrape
   * of the registry: the metrics handler scrapes the registry (which reads the kernel here) before
   * it writes the streamed families.
   */
  public StreamedFamily serviceConnections() {
    return new StreamedFamily() {
      @Override
      public String name() {
        return SERVICE_CONNECTIONS;
      }

      @Override
      public void write(SeriesWriter out) throws IOException {
        var counts = exposed;
        if (counts.isEmpty()) {
          return;
        }
        out.counter(SERVICE_CONNECTIONS, SERVICE_CONNECTIONS_HELP);
        var sample = SERVICE_CONNECTIONS + "_total";
        var labels =
            new String[] {"locality", null, "namespace", null, "port", null, "service", null};
        for (var port : counts.ports()) {
          labels[3] = port.service().namespace();
          labels[5] = port.port();
          labels[7] = port.service().name();
          for (var locality : LOCALITIES) {
            labels[1] = locality.label();
            out.sample(sample, counts.count(port, locality), labels);
          }
        }
      }

      @Override
      public MetricSnapshot snapshot() {
        var counts = exposed;
        var family =
            CounterSnapshot.builder().name(SERVICE_CONNECTIONS).help(SERVICE_CONNECTIONS_HELP);
        for (var port : counts.ports()) {
          for (var locality : LOCALITIES) {
            family.dataPoint(
                point(
                    counts.count(port, locality),
                    "namespace",
                    port.service().namespace(),
                    "service",
                    port.service().name(),
                    "port",
                    port.port(),
                    "locality",
                    locality.label()));
          }
        }
        return family.build();
      }
    };
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
    private ConnectionCounts last = new ConnectionCounts(Map.of(), 0, ServicePortCounts.NONE);
    private ConnectionCounts carried = new ConnectionCounts(Map.of(), 0, ServicePortCounts.NONE);

    /** What each port of {@code last} counted before its counters last restarted. */
    private ServicePortCounts portCarried = ServicePortCounts.NONE;

    ConnectionCounts update(ConnectionCounts read) {
      if (read != null) {
        boolean restarted = read.withoutEndpoints() < last.withoutEndpoints();
        for (var locality : Locality.values()) {
          restarted |= read.byLocality().get(locality) < last.byLocality().get(locality);
        }
        if (restarted) {
          carried = sum(carried, last);
        }
        portCarried = carriedOver(read.servicePorts(), last.servicePorts(), portCarried);
        last = read;
      }
      var totals = sum(carried, last);
      return new ConnectionCounts(
          totals.byLocality(), totals.withoutEndpoints(), last.servicePorts().plus(portCarried));
    }

    /**
     * What each port of {@code now} carries: what it carried in {@code before}, plus its figures
     * there if any of them went down since.
     */
    private static ServicePortCounts carriedOver(
        ServicePortCounts now, ServicePortCounts before, ServicePortCounts carriedBefore) {
      var kept = new java.util.TreeMap<ServicePortName, long[]>();
      for (var port : now.ports()) {
        if (!before.has(port)) {
          continue;
        }
        boolean down = false;
        for (var locality : LOCALITIES) {
          down |= now.count(port, locality) < before.count(port, locality);
        }
        var figures = new long[LOCALITIES.length];
        for (var locality : LOCALITIES) {
          figures[locality.ordinal()] =
              carriedBefore.count(port, locality) + (down ? before.count(port, locality) : 0);
        }
        kept.put(port, figures);
      }
      return ServicePortCounts.ofFigures(kept);
    }

    private static ConnectionCounts sum(ConnectionCounts a, ConnectionCounts b) {
      var byLocality = new EnumMap<Locality, Long>(Locality.class);
      for (var locality : Locality.values()) {
        byLocality.put(locality, a.byLocality().get(locality) + b.byLocality().get(locality));
      }
      return new ConnectionCounts(
          byLocality, a.withoutEndpoints() + b.withoutEndpoints(), ServicePortCounts.NONE);
    }
  }
}
