package dev.proxima.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ConnectionLocalityMetricsTest {
  private final PrometheusRegistry registry = new PrometheusRegistry();

  private static ConnectionCounts counts(long node, long zone, long otherZone, long none) {
    return new ConnectionCounts(
        Map.of(Locality.NODE, node, Locality.ZONE, zone, Locality.OTHER_ZONE, otherZone),
        none,
        ServicePortCounts.NONE);
  }

  /** Hands out the given reads in order, then repeats the last; counts the calls. */
  private static final class Reads implements Supplier<Optional<ConnectionCounts>> {
    private final Deque<Optional<ConnectionCounts>> queue = new ArrayDeque<>();
    final AtomicInteger calls = new AtomicInteger();

    @SafeVarargs
    Reads(Optional<ConnectionCounts>... reads) {
      queue.addAll(List.of(reads));
    }

    @Override
    public Optional<ConnectionCounts> get() {
      calls.incrementAndGet();
      return queue.size() > 1 ? queue.poll() : queue.peek();
    }
  }

  private static double value(MetricSnapshots snapshots, String name, String locality) {
    for (var snapshot : snapshots) {
      if (snapshot.getMetadata().getName().equals(name)) {
        for (var point : ((CounterSnapshot) snapshot).getDataPoints()) {
          if (locality == null || locality.equals(point.getLabels().get("locality"))) {
            return point.getValue();
          }
        }
      }
    }
    throw new AssertionError("no " + name + " " + locality);
  }

  @Test
  void sumsTheFamiliesAndReadsEachOncePerScrape() {
    var v4 = new Reads(Optional.of(counts(1, 2, 3, 4)));
    var v6 = new Reads(Optional.of(counts(10, 20, 0, 1)));
    var sources = new LinkedHashMap<String, Supplier<Optional<ConnectionCounts>>>();
    sources.put("IPv4", v4);
    sources.put("IPv6", v6);
    registry.register(new ConnectionLocalityMetrics(sources, () -> "zone-a"));

    var scraped = registry.scrape();

    assertThat(value(scraped, "proxima_proxy_connections", "node")).isEqualTo(11);
    assertThat(value(scraped, "proxima_proxy_connections", "zone")).isEqualTo(22);
    assertThat(value(scraped, "proxima_proxy_connections", "other-zone")).isEqualTo(3);
    assertThat(value(scraped, "proxima_proxy_connections", "unknown")).isZero();
    assertThat(value(scraped, "proxima_proxy_connections_without_endpoints", null)).isEqualTo(5);
    assertThat(scraped.stream())
        .anySatisfy(
            snapshot ->
                assertThat(snapshot.getMetadata().getName()).isEqualTo("proxima_proxy_node_zone"));
    assertThat(v4.calls).hasValue(1);
    assertThat(v6.calls).hasValue(1);
  }

  @Test
  void neverGoesDownWhenTheKernelCountersRestartOrCannotBeRead() {
    var reads =
        new Reads(
            Optional.of(counts(5, 7, 0, 1)),
            Optional.empty(),
            Optional.of(counts(1, 0, 0, 0)),
            Optional.of(counts(2, 3, 0, 0)));
    registry.register(new ConnectionLocalityMetrics(Map.of("IPv4", reads), () -> null));

    registry.scrape();
    var failed = registry.scrape();
    var restarted = registry.scrape();
    var later = registry.scrape();

    assertThat(value(failed, "proxima_proxy_connections", "node")).isEqualTo(5);
    assertThat(value(failed, "proxima_proxy_connection_counter_read_failures", null)).isEqualTo(1);
    assertThat(value(restarted, "proxima_proxy_connections", "node")).isEqualTo(6);
    assertThat(value(restarted, "proxima_proxy_connections", "zone")).isEqualTo(7);
    assertThat(value(later, "proxima_proxy_connections", "node")).isEqualTo(7);
    assertThat(value(later, "proxima_proxy_connections", "zone")).isEqualTo(10);
    assertThat(value(later, "proxima_proxy_connections_without_endpoints", null)).isEqualTo(1);
  }

  private static final dev.proxima.proxy.model.ServicePortName WEB =
      new dev.proxima.proxy.model.ServicePortName(
          new dev.proxima.model.ObjectKey("shop", "web"),
          "http",
          dev.proxima.proxy.model.Protocol.TCP);

  private static ConnectionCounts withWeb(long node, long zone) {
    return new ConnectionCounts(
        Map.of(Locality.NODE, node, Locality.ZONE, zone),
        0,
        ServicePortCounts.of(Map.of(WEB, Map.of(Locality.NODE, node, Locality.ZONE, zone))));
  }

  /**
   * Scrapes the registry, as the metrics handler does first, then takes the streamed per-Service
   * family as the handler would for a format it cannot stream into.
   */
  private Map<String, Double> scrapeServices(ConnectionLocalityMetrics metrics) {
    var scraped = registry.scrape();
    assertThat(scraped.stream())
        .noneMatch(
            snapshot ->
                snapshot.getMetadata().getName().equals("proxima_proxy_service_connections"));
    return serviceSeries(MetricSnapshots.of(metrics.serviceConnections().snapshot()));
  }

  private static Map<String, Double> serviceSeries(MetricSnapshots snapshots) {
    var series = new java.util.TreeMap<String, Double>();
    for (var snapshot : snapshots) {
      if (snapshot.getMetadata().getName().equals("proxima_proxy_service_connections")) {
        for (var point : ((CounterSnapshot) snapshot).getDataPoints()) {
          var labels = point.getLabels();
          series.put(
              labels.get("namespace")
                  + "/"
                  + labels.get("service")
                  + ":"
                  + labels.get("port")
                  + " "
                  + labels.get("locality"),
              point.getValue());
        }
      }
    }
    return series;
  }

  @Test
  void exposesEachCountedServicePortByLocalitySummedOverFamiliesAndDropsItWhenItGoes() {
    var v4 = new Reads(Optional.of(withWeb(3, 1)), Optional.of(counts(3, 1, 0, 0)));
    var v6 = new Reads(Optional.of(withWeb(2, 0)), Optional.of(counts(2, 0, 0, 0)));
    var sources = new LinkedHashMap<String, Supplier<Optional<ConnectionCounts>>>();
    sources.put("IPv4", v4);
    sources.put("IPv6", v6);
    var metrics = new ConnectionLocalityMetrics(sources, () -> "zone-a");
    registry.register(metrics);

    var counted = scrapeServices(metrics);
    var gone = scrapeServices(metrics);

    assertThat(counted)
        .containsExactly(
            Map.entry("shop/web:http node", 5.0),
            Map.entry("shop/web:http other-zone", 0.0),
            Map.entry("shop/web:http unknown", 0.0),
            Map.entry("shop/web:http zone", 1.0));
    assertThat(gone).isEmpty();
    assertThat(v4.calls).hasValue(2);
  }

  @Test
  void aServicePortsSeriesNeverGoDownWhenItsCountersRestart() {
    var reads =
        new Reads(
            Optional.of(withWeb(5, 2)),
            Optional.empty(),
            Optional.of(withWeb(1, 0)),
            Optional.of(withWeb(2, 1)));
    var metrics = new ConnectionLocalityMetrics(Map.of("IPv4", reads), () -> null);
    registry.register(metrics);

    var first = scrapeServices(metrics);
    var failed = scrapeServices(metrics);
    var restarted = scrapeServices(metrics);
    var later = scrapeServices(metrics);

    assertThat(first.get("shop/web:http node")).isEqualTo(5.0);
    assertThat(failed.get("shop/web:http node")).isEqualTo(5.0);
    assertThat(restarted.get("shop/web:http node")).isEqualTo(6.0);
    assertThat(restarted.get("shop/web:http zone")).isEqualTo(2.0);
    assertThat(later.get("shop/web:http node")).isEqualTo(7.0);
    assertThat(later.get("shop/web:http zone")).isEqualTo(3.0);
  }
}
