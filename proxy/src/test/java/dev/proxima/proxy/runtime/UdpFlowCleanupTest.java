package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the UDP conntrack cleanup is asked to compare after each sync. */
class UdpFlowCleanupTest {
  private final MutableClock clock = new MutableClock();
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();

  /** Each cleanup's current and previous UDP Service ports, by ClusterIP. */
  private final List<List<String>> current = new ArrayList<>();

  private final List<List<String>> previous = new ArrayList<>();
  private Proxier proxier;

  private static List<String> ips(List<NodePlanner.PlannedPort> ports) {
    return ports.stream().map(p -> p.port().clusterIp()).sorted().toList();
  }

  private void start() {
    var settings = new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of());
    var metrics = new ProxyMetrics(new PrometheusRegistry(), ProxyMode.nftables);
    var plane = new NftDataPlane(IpFamily.IPV4, settings, loader, metrics, Clock.systemUTC());
    var host =
        Host.withUdpFlows(
            List::of,
            (family, ports, before) -> {
              current.add(ips(ports));
              previous.add(ips(before));
              return 0;
            });
    proxier =
        Ipv4Proxiers.of(
            ProxyConfig.defaults("node-a").withRules(settings),
            cache,
            plane,
            host,
            metrics,
            new ProxyHealth(clock, Duration.ofSeconds(60)),
            clock);
  }

  private void udpService(String name, String ip, String endpoint) {
    cache.services.add(
        new ServiceBuilder(ApiObjects.service("ns", name, ip).build())
            .editSpec()
            .editFirstPort()
            .withProtocol("UDP")
            .endPort()
            .endSpec()
            .build());
    cache.slices.add(
        new EndpointSliceBuilder(ApiObjects.slice("ns", name, endpoint))
            .editFirstPort()
            .withProtocol("UDP")
            .endPort()
            .build());
  }

  @Test
  void theFirstSyncComparesWithNoPreviousPlanAndALaterOneWithTheDeletedService() {
    udpService("statsd", "10.96.0.10", "10.244.1.5");
    udpService("dns", "10.96.0.20", "10.244.1.6");
    start();

    proxier.sync(Set.of());
    assertThat(previous)
        .as("a restart's first sync wipes nothing it cannot judge")
        .containsExactly(List.of());

    cache.services.removeIf(s -> s.getMetadata().getName().equals("statsd"));
    cache.slices.removeIf(s -> s.getMetadata().getName().startsWith("statsd"));
    proxier.requireFullSync();
    proxier.sync(Set.of());

    assertThat(current.get(1)).containsExactly("10.96.0.20");
    assertThat(previous.get(1)).containsExactly("10.96.0.10", "10.96.0.20");
  }
}
