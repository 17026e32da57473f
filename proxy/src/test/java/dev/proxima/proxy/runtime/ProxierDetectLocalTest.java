package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.DetectLocalMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code --detect-local-mode=NodeCIDR} follows the Node: its spec.podCIDRs shape the rules, and
 * without them the rules are programmed with the best fallback.
 */
class ProxierDetectLocalTest {
  private final MutableClock clock = new MutableClock();
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private static final String GAUGE = "proxima_proxy_local_detection_degraded";
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private Proxier proxier;
  private RuleSettings settings =
      new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of())
          .withDetectLocal(DetectLocalMode.NODE_CIDR, "", "");

  private void start(ProxyMode mode) {
    var metrics = new ProxyMetrics(registry, mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, settings, loader, metrics, Clock.systemUTC())
            : new IptablesDataPlane(IpFamily.IPV4, settings, loader, metrics);
    var config = ProxyConfig.defaults("node-a").withRules(settings);
    proxier = Ipv4Proxiers.of(config, cache, plane, Host.none(), metrics, health, clock);
    cache.services.add(ApiObjects.service("shop", "web", "10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("shop", "web", "10.244.1.5"));
  }

  private void podCidrs(String... cidrs) {
    cache.node = new NodeBuilder(cache.node).editOrNewSpec().withPodCIDRs(cidrs).endSpec().build();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void withoutPodCidrsTheRulesUseTheClusterCidrThenTheNodesPodCidrsOnceItHasThem(ProxyMode mode) {
    start(mode);

    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts)
        .as("programmed at once with --cluster-cidr, not waiting")
        .singleElement()
        .asString()
        .contains("10.0.0.0/8")
        .contains("10.96.0.10");
    assertThat(gauge()).isEqualTo(1.0);
    assertThat(health.localDetectionWarning(IpFamily.IPV4))
        .startsWith(
            "ClusterCIDR 10.0.0.0/8; NodeCIDR is configured but the Node has no spec.podCIDRs");
    assertThat(proxier.published().state().localTraffic()).startsWith("ClusterCIDR 10.0.0.0/8;");

    podCidrs("10.244.1.0/24");
    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1)).contains("10.244.1.0/24").doesNotContain("10.0.0.0/8");
    assertThat(gauge()).isEqualTo(0.0);
    assertThat(health.localDetectionWarning(IpFamily.IPV4)).isNull();
    assertThat(proxier.published().state().localTraffic()).isEqualTo("NodeCIDR 10.244.1.0/24");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void withoutPodCidrsOrAnyFallbackTheServicesAreStillProgrammed(ProxyMode mode) {
    settings =
        new RuleSettings(List.of(), false, 14, List.of())
            .withDetectLocal(DetectLocalMode.NODE_CIDR, "", "");
    start(mode);

    proxier.sync(Set.of());

    assertThat(loader.scripts).singleElement().asString().contains("10.96.0.10");
    assertThat(proxier.published().state().localTraffic()).startsWith("None ");
  }

  private double gauge() {
    return registry.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals(GAUGE))
        .flatMap(m -> m.getDataPoints().stream())
        .mapToDouble(
            p ->
                ((io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot) p)
                    .getValue())
        .findFirst()
        .orElse(Double.NaN);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aChangeOfTheNodesPodCidrsReplacesTheRules(ProxyMode mode) {
    start(mode);
    podCidrs("10.244.1.0/24");
    proxier.sync(Set.of());

    podCidrs("10.244.7.0/24");
    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1)).contains("10.244.7.0/24").doesNotContain("10.244.1.0/24");
  }
}
