package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code --nodeport-addresses} selects among the host's interface addresses and fails closed: when
 * it selects nothing, NodePorts are accepted on no address, with a warning and a gauge.
 */
class ProxierNodePortAddressesTest {
  private static final String GAUGE = "proxima_proxy_nodeport_addresses_unmatched";

  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private final List<String> host = new ArrayList<>(List.of("127.0.0.1", "10.1.2.3", "::1"));
  private ProxyMode mode;
  private Proxier proxier;

  private void start(ProxyMode mode, List<String> nodePortCidrs, boolean withHost) {
    this.mode = mode;
    var settings = new RuleSettings(List.of("10.0.0.0/8"), false, 14, nodePortCidrs);
    var metrics = new ProxyMetrics(registry, mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, settings, loader, metrics, Clock.systemUTC())
            : new IptablesDataPlane(IpFamily.IPV4, settings, loader, metrics);
    var config = ProxyConfig.defaults("node-a").withRules(settings);
    proxier =
        withHost
            ? Ipv4Proxiers.of(
                config,
                cache,
                plane,
                Host.withUdpFlows(() -> List.copyOf(host), (f, now, before) -> 0),
                metrics,
                health,
                clock)
            : Ipv4Proxiers.of(config, cache, plane, Host.none(), metrics, health, clock);
    cache.services.add(ApiObjects.service("shop", "web", "10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("shop", "web", "10.244.1.5"));
  }

  /** The rule that sends traffic to NodePorts, as each mode writes it. */
  private List<String> nodePortEntries(String script) {
    return script
        .lines()
        .filter(
            mode == ProxyMode.nftables
                ? l -> l.contains("vmap @service-nodeports")
                : l -> l.contains("-j PROXIMA-NODEPORTS") && l.startsWith("-A PROXIMA-SERVICES"))
        .toList();
  }

  private String scrape() throws Exception {
    var out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void whenNothingMatchesNodePortsAreAcceptedOnNoAddressWithAGauge(ProxyMode mode)
      throws Exception {
    // The Node's only address, 192.168.0.11, is outside the range.
    start(mode, List.of("10.99.0.0/16"), false);

    proxier.sync(Set.of());

    var script = loader.scripts.get(0);
    if (mode == ProxyMode.nftables) {
      assertThat(nodePortEntries(script))
          .singleElement()
          .asString()
          .contains("ip daddr @nodeport-ips")
          .doesNotContain("fib daddr type local");
      assertThat(script).doesNotContain("add element ip proxima nodeport-ips");
    } else {
      assertThat(nodePortEntries(script)).isEmpty();
      assertThat(script).doesNotContain("--dst-type LOCAL ! -d 127.0.0.0/8 -j PROXIMA-NODEPORTS");
    }
    assertThat(scrape()).contains(GAUGE + "{ip_family=\"IPv4\"} 1.0");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theHostsInterfaceAddressesAreMatchedNotTheNodesStatus(ProxyMode mode) throws Exception {
    start(mode, List.of("10.1.0.0/16"), true);

    proxier.sync(Set.of());

    assertThat(nodePortEntries(loader.scripts.get(0)))
        .singleElement()
        .asString()
        .contains(mode == ProxyMode.nftables ? "@nodeport-ips" : "-d 10.1.2.3 ");
    if (mode == ProxyMode.nftables) {
      assertThat(loader.scripts.get(0))
          .contains("add element ip proxima nodeport-ips {\n\t10.1.2.3\n}");
    }
    assertThat(scrape()).contains(GAUGE + "{ip_family=\"IPv4\"} 0.0");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aSyncPassHandsEveryFamilyTheAddressesItReadOnce(ProxyMode mode) {
    start(mode, List.of("10.1.0.0/16"), true);

    // The server reads the host once per pass; the proxier must not read it again.
    proxier.sync(Set.of(), List.of("10.1.5.5"), new Proxier.OnePassObjects(cache));

    assertThat(loader.scripts.get(0))
        .contains(mode == ProxyMode.nftables ? "10.1.5.5" : "-d 10.1.5.5 ")
        .doesNotContain("10.1.2.3");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anAddressThatAppearsLaterIsFollowedWithAFullSync(ProxyMode mode) throws Exception {
    start(mode, List.of("10.7.0.0/16"), true);
    proxier.sync(Set.of());
    assertThat(scrape()).contains(GAUGE + "{ip_family=\"IPv4\"} 1.0");

    host.add("10.7.0.1");
    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1)).contains("10.7.0.1");
    assertThat(scrape()).contains(GAUGE + "{ip_family=\"IPv4\"} 0.0");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void primaryIsTheNodesFirstInternalIp(ProxyMode mode) {
    host.add("192.168.0.11");
    host.add("192.168.0.12");
    cache.node =
        new NodeBuilder(cache.node)
            .withNewStatus()
            .withAddresses(
                new NodeAddress("203.0.113.9", "ExternalIP"),
                new NodeAddress("192.168.0.11", "InternalIP"),
                new NodeAddress("192.168.0.12", "InternalIP"))
            .endStatus()
            .build();
    start(mode, List.of("primary"), true);

    proxier.sync(Set.of());

    var script = loader.scripts.get(0);
    assertThat(script).contains("192.168.0.11").doesNotContain("192.168.0.12");
  }
}
