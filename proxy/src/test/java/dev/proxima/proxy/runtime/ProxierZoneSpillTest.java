package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A new zone demand reaches the kernel as a partial sync of the Services that opted in. */
class ProxierZoneSpillTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ZoneDemand HALVES =
      ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.5));

  private final MutableClock clock = new MutableClock();
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private final List<SyncResult> results = new ArrayList<>();
  private Proxier proxier;

  private void start(ProxyMode mode) {
    var metrics = new ProxyMetrics(new PrometheusRegistry(), mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, RuleSettings.defaults(), loader, metrics, clock)
            : new IptablesDataPlane(IpFamily.IPV4, RuleSettings.defaults(), loader, metrics);
    proxier =
        Ipv4Proxiers.of(
            ProxyConfig.defaults("node-a"),
            cache,
            plane,
            Host.none(),
            metrics,
            new ProxyHealth(clock, Duration.ofSeconds(60)),
            clock);
    proxier.subscribe(results::add);
    cache.services.add(web());
    cache.slices.add(twoInZoneAAndEightInZoneB());
  }

  private static Service web() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withAnnotations(Map.of("proxima.dev/zone-spill-over", "true"))
        .endMetadata()
        .withNewSpec()
        .withClusterIP("10.96.0.10")
        .withTrafficDistribution("PreferSameZone")
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static EndpointSlice twoInZoneAAndEightInZoneB() {
    var slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web-1")
            .withLabels(Map.of(Labels.SERVICE_NAME, "web"))
            .endMetadata()
            .withAddressType("IPv4")
            .addNewPort()
            .withName("http")
            .withPort(8080)
            .withProtocol("TCP")
            .endPort();
    for (int i = 0; i < 10; i++) {
      var zone = i < 2 ? "zone-a" : "zone-b";
      slice.addToEndpoints(
          new EndpointBuilder()
              .withAddresses("10.244.0." + (10 + i))
              .withNodeName(i < 2 ? "node-a" : "node-b")
              .withZone(zone)
              .withNewConditions()
              .withReady(true)
              .endConditions()
              .withNewHints()
              .withForZones(new ForZone(zone))
              .endHints()
              .build());
    }
    return slice.build();
  }

  private static String spilled(ProxyMode mode) {
    return mode == ProxyMode.nftables
        ? "numgen random mod 1000 < 375"
        : "--probability 0.3750000000";
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aDemandThatCrowdsTheZoneLoadsItsFractionAsAPartialSync(ProxyMode mode) {
    start(mode);
    proxier.sync(Set.of());
    assertThat(String.join("", loader.scripts)).doesNotContain(spilled(mode));
    int loads = loader.scripts.size();

    cache.zoneDemand = HALVES;
    proxier.sync(Set.of(WEB));

    assertThat(results.get(results.size() - 1).decision().full()).isFalse();
    assertThat(loader.scripts).hasSizeGreaterThan(loads);
    assertThat(String.join("", loader.scripts.subList(loads, loader.scripts.size())))
        .contains(spilled(mode));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aNewDemandThatLeavesTheFractionAloneWritesNothing(ProxyMode mode) {
    start(mode);
    cache.zoneDemand = HALVES;
    proxier.sync(Set.of());
    int loads = loader.scripts.size();

    // A third zone without endpoints or demand changes the object, not zone-a's fraction.
    cache.zoneDemand = ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.5, "zone-c", 0.0));
    proxier.sync(Set.of(WEB));

    assertThat(results.get(results.size() - 1).decision().full()).isFalse();
    assertThat(loader.scripts).hasSize(loads);
    assertThat(results.get(results.size() - 1).plan().ports().get(0).spill().why())
        .contains("zone-c");
  }
}
