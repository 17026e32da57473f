package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProxierTest {
  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxyMetrics metrics = new ProxyMetrics(registry);
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final FakeCache cache = new FakeCache();
  private final RecordingLoader loader = new RecordingLoader();
  private final Proxier proxier =
      new Proxier(
          IpFamily.IPV4,
          ProxyConfig.defaults("node-a"),
          cache,
          loader,
          null,
          script -> {},
          metrics,
          health,
          clock);

  /** Fixed objects standing in for the informer caches. */
  static final class FakeCache implements ProxyCache {
    boolean synced = true;
    final List<Service> services = new ArrayList<>();
    final List<EndpointSlice> slices = new ArrayList<>();
    final List<Instant> triggers = new ArrayList<>();
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("node-a")
            .withLabels(Map.of(Labels.ZONE, "zone-a"))
            .endMetadata()
            .build();

    @Override
    public boolean hasSynced() {
      return synced;
    }

    @Override
    public Collection<Service> services() {
      return services;
    }

    @Override
    public Collection<EndpointSlice> endpointSlices() {
      return slices;
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public List<Instant> drainTriggerTimes(IpFamily family) {
      var drained = List.copyOf(triggers);
      triggers.clear();
      return drained;
    }

    @Override
    public List<String> nodeAddresses() {
      return List.of("192.168.0.11");
    }

    @Override
    public Service service(ObjectKey key) {
      return services.stream()
          .filter(
              s ->
                  s.getMetadata().getNamespace().equals(key.namespace())
                      && s.getMetadata().getName().equals(key.name()))
          .findFirst()
          .orElse(null);
    }

    @Override
    public List<EndpointSlice> slicesOf(ObjectKey service) {
      return slices.stream()
          .filter(s -> s.getMetadata().getNamespace().equals(service.namespace()))
          .filter(s -> service.name().equals(s.getMetadata().getLabels().get(Labels.SERVICE_NAME)))
          .toList();
    }

    @Override
    public Set<ObjectKey> drainChangedServices() {
      return Set.of();
    }
  }

  /** Records every script and fails when told to. */
  static final class RecordingLoader implements RuleLoader {
    final List<String> scripts = new ArrayList<>();
    boolean fail;

    @Override
    public Nft.Result apply(String script) {
      scripts.add(script);
      return fail
          ? new Nft.Result(
              false,
              "/dev/stdin:3:1-5: Error: Could not process rule: No such file or directory",
              "add rule ip proxima bogus")
          : new Nft.Result(true, "", null);
    }
  }

  private static Service service(String name, String internalTrafficPolicy) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP("10.96.0.10")
        .withInternalTrafficPolicy(internalTrafficPolicy)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static EndpointSlice slice(String service, String ip, String node) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(service + "-1")
        .withLabels(Map.of(Labels.SERVICE_NAME, service))
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .addNewEndpoint()
        .withAddresses(ip)
        .withNodeName(node)
        .withNewConditions()
        .withReady(true)
        .endConditions()
        .endEndpoint()
        .build();
  }

  private String scrape() throws Exception {
    var out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void programsNothingUntilEveryInformerHasSynced() {
    cache.synced = false;
    cache.services.add(service("web", null));

    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts).as("existing kernel rules are left alone").isEmpty();
  }

  @Test
  void loadsTheRenderedRulesetAndReportsTheSync() throws Exception {
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    health.queued(IpFamily.IPV4);

    assertThat(proxier.sync(Set.of())).isTrue();

    assertThat(loader.scripts)
        .singleElement()
        .asString()
        .contains("10.96.0.10 . tcp . 80 . 0 : 10.244.1.5 . 8080");
    assertThat(health.snapshot().status().get(IpFamily.IPV4).healthy()).isTrue();
    assertThat(scrape())
        .contains("kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("proxima_proxy_service_ports_by_topology{ip_family=\"IPv4\",level=\"None\"} 1");
  }

  @Test
  void aSyncWithNothingChangedLoadsNothing() {
    cache.services.add(service("web", null));
    proxier.sync(Set.of());

    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(1);
  }

  @Test
  void aFailedTransactionIsCountedRetriedAndForcesAFullSync() throws Exception {
    cache.services.add(service("web", null));
    loader.fail = true;
    health.queued(IpFamily.IPV4);

    assertThat(proxier.sync(Set.of())).isFalse();
    assertThat(scrape())
        .contains(
            "kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=\"IPv4\"} 1.0");
    clock.advance(Duration.ofSeconds(61));
    assertThat(health.snapshot().healthy()).as("the change is still pending").isFalse();

    loader.fail = false;
    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts).hasSize(2);
    assertThat(health.snapshot().healthy()).isTrue();
    assertThat(scrape())
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1");
  }

  @Test
  void countsLocalPolicyServicesWithoutLocalEndpoints() throws Exception {
    cache.services.add(service("web", "Local"));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));

    proxier.sync(Set.of());

    assertThat(scrape())
        .contains(
            "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"internal\"} 1.0")
        .contains(
            "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"external\"} 0.0");
    assertThat(loader.scripts.get(0)).contains("10.96.0.10 . tcp . 80").contains(": drop");
  }

  @Test
  void observesNetworkProgrammingLatencyFromTheTriggerTime() throws Exception {
    cache.services.add(service("web", null));
    cache.triggers.add(clock.instant().minusMillis(700));

    proxier.sync(Set.of());

    assertThat(scrape())
        .contains(
            "kubeproxy_network_programming_duration_seconds_bucket{ip_family=\"IPv4\",le=\"1.0\"} 1");
  }

  @Test
  void aChangedEndpointIsLoadedAsAPartialTransaction() throws Exception {
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    proxier.sync(Set.of());

    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));
    proxier.sync(Set.of(new ObjectKey("shop", "web")));

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1))
        .doesNotContain("add table")
        .contains("10.96.0.10 . tcp . 80 . 0 : 10.244.1.6 . 8080");
    assertThat(scrape())
        .contains("kubeproxy_sync_partial_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1");
  }

  @Test
  void aPartialSyncPlansAndLoadsOnlyTheServicesThatChanged() {
    var other =
        new ServiceBuilder(service("api", null))
            .editSpec()
            .withClusterIP("10.96.0.11")
            .endSpec()
            .build();
    cache.services.add(service("web", null));
    cache.services.add(other);
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    cache.slices.add(slice("api", "10.244.2.5", "node-b"));
    proxier.sync(Set.of());
    // A change the tracker did not report must not be picked up by a partial sync.
    cache.slices.set(1, slice("api", "10.244.2.9", "node-b"));
    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));

    proxier.sync(Set.of(new ObjectKey("shop", "web")));

    assertThat(loader.scripts.get(1))
        .contains("10.244.1.6")
        .doesNotContain("10.96.0.11")
        .doesNotContain("10.244.2.9");
  }

  @Test
  void aNodeChangingZoneReplansEverything() {
    cache.services.add(service("web", null));
    proxier.sync(Set.of());

    cache.node =
        new NodeBuilder(cache.node)
            .editMetadata()
            .addToLabels(Labels.ZONE, "zone-b")
            .endMetadata()
            .build();
    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1)).startsWith("add table ip proxima");
  }
}
