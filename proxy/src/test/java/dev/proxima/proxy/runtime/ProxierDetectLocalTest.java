package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.DetectLocalMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code --detect-local-mode=NodeCIDR} follows the Node: its spec.podCIDRs shape the rules. */
class ProxierDetectLocalTest {
  private final MutableClock clock = new MutableClock();
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private Proxier proxier;

  private void start(ProxyMode mode) {
    var settings =
        new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of())
            .withDetectLocal(DetectLocalMode.NODE_CIDR, "", "");
    var metrics = new ProxyMetrics(new PrometheusRegistry(), mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, settings, loader, metrics)
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
  void programsNothingUntilTheNodeHasPodCidrsThenTreatsThemAsPodTraffic(ProxyMode mode) {
    start(mode);

    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts).as("waiting for spec.podCIDRs, as kube-proxy").isEmpty();

    podCidrs("10.244.1.0/24");
    proxier.sync(Set.of());

    assertThat(loader.scripts).singleElement().asString().contains("10.244.1.0/24");
    assertThat(loader.scripts.get(0)).doesNotContain("10.0.0.0/8");
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
