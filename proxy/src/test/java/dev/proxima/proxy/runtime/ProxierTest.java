package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.DataPlane;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.explain.SyncState;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.kernel.HostCommand;
import dev.proxima.proxy.kernel.IptablesKernel;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.iptables.IptablesChains;
import dev.proxima.proxy.render.iptables.JumpRule;
import dev.proxima.proxy.sync.SyncPolicy;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * The sync pipeline's behaviour, the same in both modes: every test runs against the nftables and
 * the iptables data plane, with the kernel replaced by a recording fake.
 */
class ProxierTest {
  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final FakeCache cache = new FakeCache();
  private final RecordingLoader loader = new RecordingLoader();
  private final List<Map<ServicePortName, ServicePortRules>> updates = new ArrayList<>();
  private ProxyMode mode;
  private Proxier proxier;

  private void start(ProxyMode mode) {
    this.mode = mode;
    var metrics = new ProxyMetrics(registry, mode);
    var plane =
        new UpdateRecordingPlane(
            mode == ProxyMode.nftables
                ? new NftDataPlane(IpFamily.IPV4, RuleSettings.defaults(), loader, metrics, clock)
                : new IptablesDataPlane(IpFamily.IPV4, RuleSettings.defaults(), loader, metrics),
            updates);
    proxier =
        Ipv4Proxiers.of(
            ProxyConfig.defaults("node-a"), cache, plane, Host.none(), metrics, health, clock);
  }

  /** How each mode writes "ClusterIP 10.96.0.10:80/TCP goes to this endpoint". */
  private String routes(String endpointIp) {
    return mode == ProxyMode.nftables
        ? "10.96.0.10 . tcp . 80 . 0 : " + endpointIp + " . 8080"
        : "--to-destination " + endpointIp + ":8080";
  }

  private String failureCounter() {
    return mode == ProxyMode.nftables
        ? "kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=\"IPv4\"} 1.0"
        : "kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family=\"IPv4\"} 1.0";
  }

  /** The first line of a full load: the nft table, or the iptables canary. */
  private String fullLoadStart() {
    return mode == ProxyMode.nftables ? "add table ip proxima" : "*mangle";
  }

  /** Services web (10.96.0.10) and api (10.96.0.11), one endpoint each, after a full sync. */
  private void startWithWebAndApiSynced(ProxyMode mode) {
    start(mode);
    cache.services.add(service("web", null));
    cache.services.add(
        new ServiceBuilder(service("api", null))
            .editSpec()
            .withClusterIP("10.96.0.11")
            .endSpec()
            .build());
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    cache.slices.add(slice("api", "10.244.2.5", "node-b"));
    proxier.sync(Set.of());
  }

  /** A data plane that notes the changes each partial sync hands it. */
  private record UpdateRecordingPlane(
      DataPlane plane, List<Map<ServicePortName, ServicePortRules>> updates) implements DataPlane {
    @Override
    public Outcome replaceAll(
        List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs) {
      return plane.replaceAll(ports, nodePortAddresses, nodePodCidrs);
    }

    @Override
    public void serviceCidrs(List<String> cidrs) {
      plane.serviceCidrs(cidrs);
    }

    @Override
    public Outcome update(Map<ServicePortName, ServicePortRules> changes) {
      updates.add(new HashMap<>(changes));
      return plane.update(changes);
    }

    @Override
    public int linesLoaded() {
      return plane.linesLoaded();
    }

    @Override
    public List<String> warnings() {
      return plane.warnings();
    }

    @Override
    public void removeStale() {
      plane.removeStale();
    }

    @Override
    public boolean intact() {
      return plane.intact();
    }

    @Override
    public Optional<ConnectionCounts> connectionCounts() {
      return plane.connectionCounts();
    }
  }

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

    ClusterNodeAddresses clusterNodes = ClusterNodeAddresses.NONE;

    @Override
    public ClusterNodeAddresses clusterNodeAddresses() {
      return clusterNodes;
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

    dev.proxima.model.ZoneDemand zoneDemand = dev.proxima.model.ZoneDemand.unknown();

    @Override
    public dev.proxima.model.ZoneDemand zoneDemand() {
      return zoneDemand;
    }
  }

  /**
   * Records every script and fails when told to; as the iptables kernel, it holds every jump and
   * canary unless told they vanished.
   */
  static final class RecordingLoader implements IptablesKernel, RuleLoader {
    final List<String> scripts = new ArrayList<>();
    final List<JumpRule> inserted = new ArrayList<>();
    boolean fail;
    boolean jumpsPresent = true;
    boolean canaryPresent = true;

    @Override
    public Map<String, Set<String>> proximaChains() {
      return Map.of("nat", Set.of("PROXIMA-SVC-LEFTOVER0000000"));
    }

    @Override
    public boolean has(JumpRule jump) {
      return jumpsPresent;
    }

    @Override
    public HostCommand.Outcome insert(JumpRule jump) {
      inserted.add(jump);
      return new HostCommand.Outcome(0, "", HostCommand.Ending.EXITED);
    }

    @Override
    public boolean hasCanary(String table) {
      return canaryPresent;
    }

    @Override
    public Nft.Result apply(NftTransaction transaction) {
      return apply(transaction.toString());
    }

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
    return ApiObjects.sliceOnNode("shop", service, node, ip);
  }

  private static EndpointSlice slice(String service, String ip, String node, String... more) {
    var addresses = new ArrayList<String>();
    addresses.add(ip);
    addresses.addAll(List.of(more));
    return ApiObjects.sliceOnNode("shop", service, node, addresses.toArray(String[]::new));
  }

  private String scrape() throws Exception {
    var out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void programsNothingUntilEveryInformerHasSynced(ProxyMode mode) {
    start(mode);
    cache.synced = false;
    cache.services.add(service("web", null));

    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts).as("existing kernel rules are left alone").isEmpty();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void loadsTheRenderedRulesetAndReportsTheSync(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    health.queued(IpFamily.IPV4);

    assertThat(proxier.sync(Set.of())).isTrue();

    assertThat(loader.scripts).singleElement().asString().contains(routes("10.244.1.5"));
    assertThat(health.snapshot().status().get(IpFamily.IPV4).healthy()).isTrue();
    assertThat(scrape())
        .contains("kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("proxima_proxy_service_ports_by_topology{ip_family=\"IPv4\",level=\"None\"} 1");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void everySyncTellsItsObserversWhatItDidAndWhy(ProxyMode mode) {
    start(mode);
    var results = new ArrayList<SyncResult>();
    proxier.subscribe(results::add);
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    var web = Set.of(new ObjectKey("shop", "web"));

    proxier.sync(Set.of());
    loader.fail = true;
    cache.slices.add(slice("web", "10.244.1.6", "node-b"));
    proxier.sync(web);
    loader.fail = false;
    proxier.sync(web);
    proxier.sync(Set.of());

    assertThat(results)
        .extracting(SyncResult::outcome)
        .containsExactly(
            SyncResult.Outcome.LOADED,
            SyncResult.Outcome.FAILED,
            SyncResult.Outcome.LOADED,
            SyncResult.Outcome.UNCHANGED);
    // The failed sync is partial, though it brings an endpoint count new to the table.
    assertThat(results)
        .extracting(r -> r.decision().reason())
        .containsExactly(
            SyncPolicy.Reason.FIRST_SYNC,
            SyncPolicy.Reason.NONE,
            SyncPolicy.Reason.AFTER_FAILURE,
            SyncPolicy.Reason.NONE);
    assertThat(results.get(0).plan().ports()).hasSize(1);
    assertThat(results.get(0).rulesLoaded()).isPositive();
    assertThat(results.get(1).plan()).isNull();
    assertThat(results.get(1).error()).isNotBlank();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theHealthCheckListenersFollowTheLoadedPlanAsAnObserver(ProxyMode mode) throws Exception {
    start(mode);
    int healthCheckPort;
    try (var free = new java.net.ServerSocket(0)) {
      healthCheckPort = free.getLocalPort();
    }
    var web = new ObjectKey("shop", "web");
    try (var servers = new dev.proxima.proxy.health.ServiceHealthServers(() -> true, () -> {})) {
      proxier.subscribe(new ServiceHealthChecks(servers, RuleSettings.defaults(), cache));
      cache.services.add(
          new ServiceBuilder(service("web", null))
              .editSpec()
              .withType("LoadBalancer")
              .withExternalTrafficPolicy("Local")
              .withHealthCheckNodePort(healthCheckPort)
              .endSpec()
              .build());
      cache.slices.add(slice("web", "10.244.1.5", "node-a"));

      proxier.sync(Set.of());
      assertThat(servers.port(web)).isEqualTo(healthCheckPort);

      cache.services.clear();
      proxier.sync(Set.of(web));
      assertThat(servers.port(web)).isEqualTo(-1);
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aSyncWithNothingChangedLoadsNothing(ProxyMode mode) {
    start(mode);
    cache.services.add(service("web", null));
    proxier.sync(Set.of());

    proxier.sync(Set.of());

    assertThat(loader.scripts).hasSize(1);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aFailedTransactionIsCountedRetriedAndForcesAFullSync(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", null));
    loader.fail = true;
    health.queued(IpFamily.IPV4);

    assertThat(proxier.sync(Set.of())).isFalse();
    assertThat(scrape()).contains(failureCounter());
    clock.advance(Duration.ofSeconds(61));
    assertThat(health.snapshot().healthy()).as("the change is still pending").isFalse();

    loader.fail = false;
    assertThat(proxier.sync(Set.of())).isTrue();
    assertThat(loader.scripts).hasSize(2);
    assertThat(health.snapshot().healthy()).isTrue();
    assertThat(scrape())
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1");
  }

  /** The endpoints explain --live shows for shop/web, from what the sync thread published. */
  private List<String> publishedWebEndpoints() {
    return proxier.published().plan().ports().stream()
        .filter(p -> p.port().name().service().equals(new ObjectKey("shop", "web")))
        .flatMap(p -> p.selection().clusterEndpoints().stream())
        .map(e -> e.address())
        .toList();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void explainLiveSeesTheLastLoadedPlanAndAFailedLoadAsTheLastError(ProxyMode mode) {
    start(mode);
    assertThat(proxier.published().plan()).isNull();
    assertThat(proxier.published().state()).isEqualTo(SyncState.notSynced(IpFamily.IPV4));
    var web = Set.of(new ObjectKey("shop", "web"));
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));

    proxier.sync(Set.of());
    var firstFull = clock.instant();
    assertThat(publishedWebEndpoints()).containsExactly("10.244.1.5:8080");
    assertThat(proxier.published().state().lastFullSync()).isEqualTo(firstFull);
    assertThat(proxier.published().state().rulesLoaded()).isPositive();
    assertThat(proxier.published().state().servicePorts()).isEqualTo(1);

    // The kernel refuses the next load: it keeps the old rules, and so does the report.
    clock.advance(Duration.ofSeconds(5));
    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));
    loader.fail = true;
    assertThat(proxier.sync(web)).isFalse();
    var failed = proxier.published().state();
    assertThat(publishedWebEndpoints()).containsExactly("10.244.1.5:8080");
    assertThat(failed.failing()).isTrue();
    assertThat(failed.lastError().at()).isEqualTo(clock.instant());
    assertThat(failed.lastError().message()).isNotBlank();
    assertThat(failed.lastFullSync()).isEqualTo(firstFull);

    clock.advance(Duration.ofSeconds(5));
    loader.fail = false;
    assertThat(proxier.sync(web)).isTrue();
    assertThat(publishedWebEndpoints()).containsExactly("10.244.1.6:8080");
    assertThat(proxier.published().state().failing()).isFalse();
    assertThat(proxier.published().state().lastFullSync()).isEqualTo(clock.instant());
    assertThat(proxier.published().state().lastError()).isEqualTo(failed.lastError());

    clock.advance(Duration.ofSeconds(5));
    cache.slices.set(0, slice("web", "10.244.1.7", "node-b"));
    proxier.sync(web);
    assertThat(publishedWebEndpoints()).containsExactly("10.244.1.7:8080");
    assertThat(proxier.published().state().lastPartialSync()).isEqualTo(clock.instant());
    assertThat(proxier.published().state().lastFullSync()).isNotEqualTo(clock.instant());
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void countsLocalPolicyServicesWithoutLocalEndpoints(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", "Local"));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));

    proxier.sync(Set.of());

    assertThat(scrape())
        .contains(
            "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"internal\"} 1.0")
        .contains(
            "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"external\"} 0.0");
    if (mode == ProxyMode.nftables) {
      assertThat(loader.scripts.get(0))
          .contains("10.96.0.10 . tcp . 80")
          .contains(": goto no-endpoint-drop");
    } else {
      assertThat(loader.scripts.get(0)).contains("-d 10.96.0.10 --dport 80 -j DROP");
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void observesNetworkProgrammingLatencyFromTheTriggerTime(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", null));
    cache.triggers.add(clock.instant().minusMillis(700));

    proxier.sync(Set.of());

    assertThat(scrape())
        .contains(
            "kubeproxy_network_programming_duration_seconds_bucket{ip_family=\"IPv4\",le=\"1.0\"} 1");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aChangedEndpointIsLoadedAsAPartialTransaction(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    proxier.sync(Set.of());

    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));
    proxier.sync(Set.of(new ObjectKey("shop", "web")));

    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1))
        .doesNotContain(fullLoadStart())
        .contains(routes("10.244.1.6"));
    assertThat(scrape())
        .contains("kubeproxy_sync_partial_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1")
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anEndpointCountNewToTheTableIsLoadedAsAPartialSync(ProxyMode mode) throws Exception {
    start(mode);
    var results = new ArrayList<SyncResult>();
    proxier.subscribe(results::add);
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    proxier.sync(Set.of());
    var web = Set.of(new ObjectKey("shop", "web"));

    // Two, then three endpoints: counts no port of the table had.
    cache.slices.set(0, slice("web", "10.244.1.5", "node-b", "10.244.1.6"));
    proxier.sync(web);
    cache.slices.set(0, slice("web", "10.244.1.5", "node-b", "10.244.1.6", "10.244.1.7"));
    proxier.sync(web);

    assertThat(results)
        .extracting(r -> r.decision().reason())
        .containsExactly(
            SyncPolicy.Reason.FIRST_SYNC, SyncPolicy.Reason.NONE, SyncPolicy.Reason.NONE);
    assertThat(results).extracting(SyncResult::outcome).containsOnly(SyncResult.Outcome.LOADED);
    assertThat(loader.scripts).hasSize(3);
    assertThat(loader.scripts.get(2)).doesNotContain(fullLoadStart()).contains("10.244.1.7");
    if (mode == ProxyMode.nftables) {
      assertThat(loader.scripts.get(1)).contains("add map ip proxima lb-2 {");
      assertThat(loader.scripts.get(2))
          .contains("add map ip proxima lb-3 {")
          .contains("add chain ip proxima lb-3\n")
          .contains("10.96.0.10 . tcp . 80 . 2 : 10.244.1.7 . 8080");
    }
    assertThat(scrape())
        .contains("kubeproxy_sync_partial_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 2")
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aPartialSyncPlansAndLoadsOnlyTheServicesThatChanged(ProxyMode mode) {
    startWithWebAndApiSynced(mode);
    // A change the tracker did not report must not be picked up by a partial sync.
    cache.slices.set(1, slice("api", "10.244.2.9", "node-b"));
    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));

    proxier.sync(Set.of(new ObjectKey("shop", "web")));

    assertThat(loader.scripts.get(1)).contains("10.244.1.6").doesNotContain("10.244.2.9");
    if (mode == ProxyMode.nftables) {
      assertThat(loader.scripts.get(1)).doesNotContain("10.96.0.11");
    } else {
      // The top-level chains are rewritten every sync; the unchanged Service's own chains are not.
      var api =
          IptablesChains.SVC_PREFIX
              + IptablesChains.serviceHash(
                  new ServicePortName(new ObjectKey("shop", "api"), "http", Protocol.TCP));
      assertThat(loader.scripts.get(1)).contains("-j " + api).doesNotContain(":" + api);
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aChangedServiceThatPlansAsBeforeIsNotRenderedAgain(ProxyMode mode) {
    startWithWebAndApiSynced(mode);
    // An informer replaying what it listed reports both; only api's endpoint moved.
    cache.slices.set(1, slice("api", "10.244.2.9", "node-b"));

    proxier.sync(Set.of(new ObjectKey("shop", "web"), new ObjectKey("shop", "api")));

    assertThat(updates)
        .singleElement()
        .satisfies(
            changes ->
                assertThat(changes)
                    .containsOnlyKeys(
                        new ServicePortName(new ObjectKey("shop", "api"), "http", Protocol.TCP)));
    assertThat(loader.scripts.get(1)).contains("10.244.2.9");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aNodeChangingZoneReplansEverything(ProxyMode mode) throws Exception {
    start(mode);
    cache.services.add(service("web", null));
    proxier.sync(Set.of());

    cache.node =
        new NodeBuilder(cache.node)
            .editMetadata()
            .addToLabels(Labels.ZONE, "zone-b")
            .endMetadata()
            .build();
    proxier.sync(Set.of());

    assertThat(scrape())
        .contains("kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 2");
    if (mode == ProxyMode.nftables) {
      // Every full sync builds the whole table again, beside the one in use, and switches to it.
      assertThat(loader.scripts).hasSize(2);
      assertThat(loader.scripts.get(1)).contains("add chain ip proxima services-g1");
    } else {
      assertThat(loader.scripts).hasSize(2);
      assertThat(loader.scripts.get(1)).startsWith(fullLoadStart());
    }
  }

  /**
   * A removed Service's own chains and sets (here a ClientIP one's) are emptied by the partial sync
   * and deleted a second later in a transaction of their own; a refused deletion is logged, kept
   * and retried later, and does not get in the way of the syncs.
   */
  @Test
  void nftDeletesARemovedServicesChainsASecondLaterAndRetriesARefusedDeletion() throws Exception {
    var appender = new ListAppender<ILoggingEvent>();
    appender.start();
    var logger = (Logger) LoggerFactory.getLogger(NftDataPlane.class);
    logger.addAppender(appender);
    try {
      start(ProxyMode.nftables);
      cache.services.add(
          new ServiceBuilder(service("web", null))
              .editSpec()
              .withSessionAffinity("ClientIP")
              .endSpec()
              .build());
      cache.slices.add(slice("web", "10.244.1.5", "node-b"));
      proxier.sync(Set.of());
      cache.services.clear();
      cache.slices.clear();

      proxier.sync(Set.of(new ObjectKey("shop", "web")));
      proxier.removeStale();

      assertThat(loader.scripts).hasSize(2);
      assertThat(loader.scripts.get(1)).contains("flush chain ").doesNotContain("delete chain ");
      assertThat(scrape())
          .containsPattern("proxima_proxy_nftables_stale_objects\\{ip_family=\"IPv4\"} [1-9]");

      clock.advance(Duration.ofSeconds(1));
      loader.fail = true;
      proxier.removeStale();
      assertThat(loader.scripts).hasSize(3);
      assertThat(loader.scripts.get(2))
          .contains("delete chain ip proxima ", "delete set ip proxima affinity-")
          .doesNotContain("flush", "element");
      assertThat(appender.list)
          .filteredOn(event -> event.getLevel() == Level.WARN)
          .singleElement()
          .satisfies(
              event ->
                  assertThat(event.getKeyValuePairs().toString())
                      .contains("affinity-", "No such file or directory"));

      loader.fail = false;
      proxier.removeStale();
      assertThat(loader.scripts).as("retried later, not at once").hasSize(3);
      cache.services.add(service("api", null));
      assertThat(proxier.sync(Set.of(new ObjectKey("shop", "api")))).isTrue();
      assertThat(loader.scripts).hasSize(4);
      assertThat(loader.scripts.get(3)).doesNotStartWith(fullLoadStart());

      // Past the data plane's delay before it retries a refused deletion.
      clock.advance(Duration.ofMinutes(1));
      proxier.removeStale();
      assertThat(loader.scripts).hasSize(5);
      assertThat(loader.scripts.get(4)).isEqualTo(loader.scripts.get(2));
      assertThat(scrape()).contains("proxima_proxy_nftables_stale_objects{ip_family=\"IPv4\"} 0.0");
      proxier.removeStale();
      assertThat(loader.scripts).hasSize(5);
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void iptablesFullSyncDeletesLeftoverChainsAndEnsuresTheJumpsFromTheBuiltInChains() {
    start(ProxyMode.iptables);
    cache.services.add(service("web", null));
    loader.jumpsPresent = false;

    proxier.sync(Set.of());

    assertThat(loader.scripts.get(0))
        .contains(":PROXIMA-SVC-LEFTOVER0000000 - [0:0]\n")
        .contains("-X PROXIMA-SVC-LEFTOVER0000000\n");
    assertThat(loader.inserted)
        .extracting(j -> j.table() + " " + j.chain() + " " + j.target())
        .contains("nat PREROUTING PROXIMA-SERVICES", "nat POSTROUTING PROXIMA-POSTROUTING")
        .hasSize(12);
  }

  @Test
  void iptablesAVanishedCanaryOrJumpMakesTheNextSyncFull() {
    start(ProxyMode.iptables);
    cache.services.add(service("web", null));
    proxier.sync(Set.of());
    assertThat(proxier.checkKernel()).as("all in place").isTrue();

    loader.canaryPresent = false;
    assertThat(proxier.checkKernel()).isFalse();
    proxier.sync(Set.of());
    assertThat(loader.scripts).hasSize(2);
    assertThat(loader.scripts.get(1)).startsWith("*mangle\n:PROXIMA-PROXY-CANARY - [0:0]");

    loader.canaryPresent = true;
    loader.jumpsPresent = false;
    assertThat(proxier.checkKernel()).isFalse();
  }

  @Test
  void iptablesAFailedPartialRestoreIsCountedApartAndTheNextSyncIsFull() throws Exception {
    start(ProxyMode.iptables);
    cache.services.add(service("web", null));
    cache.slices.add(slice("web", "10.244.1.5", "node-b"));
    proxier.sync(Set.of());
    cache.slices.set(0, slice("web", "10.244.1.6", "node-b"));
    loader.fail = true;

    assertThat(proxier.sync(Set.of(new ObjectKey("shop", "web")))).isFalse();
    loader.fail = false;
    proxier.sync(Set.of());

    assertThat(scrape())
        .contains(
            "kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total{ip_family=\"IPv4\"} 1.0")
        .contains(
            "kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family=\"IPv4\"} 1.0")
        .contains("kubeproxy_sync_proxy_rules_iptables_total{ip_family=\"IPv4\",table=\"nat\"}");
    assertThat(loader.scripts.get(2)).startsWith("*mangle").contains("10.244.1.6:8080");
  }

  // A tenant's Service naming another Service's ClusterIP as an externalIP: the ClusterIP keeps
  // its address in partial and full syncs alike, whoever came first, so nodes never disagree.

  private static final ObjectKey ATTACKER = new ObjectKey("evil", "a");
  private static final ObjectKey VICTIM = new ObjectKey("good", "web");

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
    int loads = loader.scripts.size();
    proxier.sync(Set.of());
    if (mode == ProxyMode.nftables) {
      // The full sync builds the whole table again: the victim keeps its key there too.
      assertThat(loader.scripts).hasSize(loads + 1);
      assertThat(lastScript()).contains(victimClaim()).doesNotContain(attackerClaim());
    } else {
      assertThat(lastScript()).contains(victimClaim()).doesNotContain(attackerClaim());
    }
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

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aCollisionIsLoggedOnceAtWarnNamingBothServices(ProxyMode mode) {
    var appender = new ListAppender<ILoggingEvent>();
    appender.start();
    var logger = (Logger) LoggerFactory.getLogger(Proxier.class);
    logger.addAppender(appender);
    try {
      start(mode);
      addVictim();
      addAttacker();

      proxier.sync(Set.of());
      proxier.sync(Set.of(ATTACKER));

      assertThat(appender.list)
          .filteredOn(event -> event.getLevel() == Level.WARN)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(message -> message.startsWith("Address collision"))
          .singleElement()
          .asString()
          .contains("evil/a:http", "good/web:http", "10.96.0.10 tcp/80", "good/web:http keeps it");
    } finally {
      logger.detachAppender(appender);
    }
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
    cache.services.add(ApiObjects.service("good", "web", "10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("good", "web", "10.244.1.5"));
  }

  private void addAttacker() {
    cache.services.add(
        ApiObjects.service("evil", "a", "10.96.0.99").externalIps("10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("evil", "a", "10.244.9.9"));
  }
}
