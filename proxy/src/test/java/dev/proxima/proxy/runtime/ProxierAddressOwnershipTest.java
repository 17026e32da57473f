package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A tenant's Service naming another Service's ClusterIP as an externalIP, through the live sync
 * pipeline in both modes: the ClusterIP keeps its address in partial and full syncs alike, whoever
 * came first, so nodes never disagree on who gets the traffic.
 */
class ProxierAddressOwnershipTest {
  private static final ObjectKey ATTACKER = new ObjectKey("evil", "a");
  private static final ObjectKey VICTIM = new ObjectKey("good", "web");

  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private ProxyMode mode;
  private Proxier proxier;

  private void start(ProxyMode mode) {
    this.mode = mode;
    var metrics = new ProxyMetrics(registry, mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, RuleSettings.defaults(), loader, s -> {}, metrics)
            : new IptablesDataPlane(
                IpFamily.IPV4, RuleSettings.defaults(), loader, s -> {}, metrics);
    proxier =
        new Proxier(
            IpFamily.IPV4,
            ProxyConfig.defaults("node-a"),
            cache,
            plane,
            null,
            metrics,
            new ProxyHealth(clock, Duration.ofSeconds(60)),
            clock);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theVictimKeepsItsClusterIpThroughAPartialSyncAndTheNextFullSync(ProxyMode mode)
      throws Exception {
    start(mode);
    addVictim();
    proxier.sync(Set.of());

    addAttacker();
    proxier.sync(Set.of(ATTACKER));
    assertThat(lastScript()).doesNotContain(attackerClaim());

    proxier.requireFullSync();
    proxier.sync(Set.of());
    assertThat(lastScript()).contains(victimClaim()).doesNotContain(attackerClaim());
    assertThat(scrape()).contains("proxima_proxy_address_collisions{ip_family=\"IPv4\"} 1.0");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aClusterIpTakesItsAddressBackFromAnExternalIpThatClaimedItFirst(ProxyMode mode) {
    start(mode);
    addAttacker();
    proxier.sync(Set.of());
    assertThat(lastScript()).contains(attackerClaim());

    addVictim();
    proxier.sync(Set.of(VICTIM));

    assertThat(lastScript()).contains(victimClaim());
    if (mode == ProxyMode.iptables) {
      assertThat(lastScript()).doesNotContain(attackerClaim());
    } else {
      assertThat(lastScript()).contains("delete element ip proxima service-ips");
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theExternalIpComesBackWhenTheClusterIpGoes(ProxyMode mode) {
    start(mode);
    addVictim();
    addAttacker();
    proxier.sync(Set.of());
    assertThat(lastScript()).doesNotContain(attackerClaim());

    cache.services.removeIf(s -> s.getMetadata().getName().equals("web"));
    proxier.sync(Set.of(VICTIM));

    assertThat(lastScript()).contains(attackerClaim());
  }

  /** How each mode writes "10.96.0.10:80/TCP belongs to evil/a's externalIP". */
  private String attackerClaim() {
    return mode == ProxyMode.nftables
        ? "10.96.0.10 . tcp . 80 comment \"evil/a:http\""
        : "evil/a:http external IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80";
  }

  private String victimClaim() {
    return mode == ProxyMode.nftables
        ? "10.96.0.10 . tcp . 80 comment \"good/web:http\""
        : "good/web:http cluster IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80";
  }

  private String lastScript() {
    return loader.scripts.get(loader.scripts.size() - 1);
  }

  private void addVictim() {
    cache.services.add(service("good", "web", "10.96.0.10", List.of()));
    cache.slices.add(slice("good", "web", "10.244.1.5"));
  }

  private void addAttacker() {
    cache.services.add(service("evil", "a", "10.96.0.99", List.of("10.96.0.10")));
    cache.slices.add(slice("evil", "a", "10.244.9.9"));
  }

  private static Service service(
      String namespace, String name, String clusterIp, List<String> externalIps) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP(clusterIp)
        .withExternalIPs(externalIps)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static EndpointSlice slice(String namespace, String service, String ip) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
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
        .withNodeName("node-b")
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
}
