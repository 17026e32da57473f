package dev.proxima.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.ProxyMode;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SysctlUntunedMetricTest {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxyMetrics metrics = new ProxyMetrics(registry, ProxyMode.nftables);

  private Map<String, Double> untuned() {
    return registry.scrape().stream()
        .filter(snapshot -> snapshot.getMetadata().getName().equals("proxima_proxy_sysctl_untuned"))
        .flatMap(snapshot -> ((GaugeSnapshot) snapshot).getDataPoints().stream())
        .collect(
            Collectors.toMap(point -> point.getLabels().get("name"), point -> point.getValue()));
  }

  @Test
  void eachSysctlTheProxyCouldNotSetIsOneSeriesAtOneNamedWithoutItsValue() {
    metrics.sysctlsUntuned(
        List.of(
            "net.netfilter.nf_conntrack_max=131072",
            "net.netfilter.nf_conntrack_tcp_timeout_established=86400"));

    assertThat(untuned())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "net.netfilter.nf_conntrack_max", 1.0,
                "net.netfilter.nf_conntrack_tcp_timeout_established", 1.0));
  }

  @Test
  void aProxyThatSetEverySysctlHasNoSeries() {
    metrics.sysctlsUntuned(List.of());

    assertThat(untuned()).isEmpty();
  }
}
