package dev.proxima.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZoneSpillMetricsTest {
  private static ServicePortName port(String name) {
    return new ServicePortName(new ObjectKey("shop", name), "http", Protocol.TCP);
  }

  private static GaugeSnapshot scrape(PrometheusRegistry registry) {
    return (GaugeSnapshot)
        registry.scrape().stream()
            .filter(
                s -> s.getMetadata().getName().equals("proxima_proxy_zone_spill_local_fraction"))
            .findFirst()
            .orElseThrow();
  }

  @Test
  void eachSpillingPortShowsItsInZoneFractionLabelledByNamespaceServiceAndPortName() {
    var registry = new PrometheusRegistry();
    registry.register(new ZoneSpillMetrics(() -> Map.of(port("web"), 375, port("api"), 1000), 10));

    var points = scrape(registry).getDataPoints();

    assertThat(points).hasSize(2);
    var web =
        points.stream()
            .filter(p -> p.getLabels().get("service").equals("web"))
            .findFirst()
            .orElseThrow();
    assertThat(web.getValue()).isEqualTo(0.375);
    assertThat(web.getLabels().get("namespace")).isEqualTo("shop");
    assertThat(web.getLabels().get("port")).isEqualTo("http");
  }

  @Test
  void theSeriesAreCappedLikeThePerServiceLocalitySeriesFirstPortsInNameOrder() {
    var registry = new PrometheusRegistry();
    registry.register(
        new ZoneSpillMetrics(() -> Map.of(port("c"), 100, port("a"), 200, port("b"), 300), 2));

    assertThat(scrape(registry).getDataPoints())
        .extracting(p -> p.getLabels().get("service"))
        .containsExactly("a", "b");
  }
}
