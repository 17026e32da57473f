package dev.proxima.proxy.runtime;

import static dev.proxima.proxy.testing.ApiObjects.serviceCidr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.http.testing.StalledClients;
import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The live proxy pipeline in dry-run against the CRUD mock: informers to rendered rulesets. */
@EnableKubernetesMockClient(crud = true, https = false)
class ProxyServerTest {
  KubernetesClient client;
  KubernetesMockServer server;

  private final List<String> scripts = new CopyOnWriteArrayList<>();
  private ProxyServer proxy;

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
  }

  private void startProxy() throws Exception {
    startProxy(Duration.ofMillis(100));
  }

  private void startProxy(Duration minSyncPeriod) throws Exception {
    proxy = dryRunProxy(minSyncPeriod);
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        CompletableFuture.completedFuture(null));
  }

  /** A started dry-run proxy whose host work is {@code hostPrepared}. */
  private void startProxyAfter(CompletionStage<?> hostPrepared) throws Exception {
    proxy = dryRunProxy(Duration.ofMillis(100));
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        hostPrepared);
  }

  /** A proxy that prints its rulesets into {@link #scripts}, not started yet. */
  private ProxyServer dryRunProxy(Duration minSyncPeriod) {
    return new ProxyServer(
        client,
        config(minSyncPeriod),
        ProxyMode.nftables,
        DataPlanes.nftables(config(minSyncPeriod).rules(), new PrintingRuleLoader(scripts::add)),
        Host.none(),
        new PrometheusRegistry(),
        Duration.ZERO,
        Clock.systemUTC());
  }

  private static ProxyConfig config() {
    return config(Duration.ofMillis(100));
  }

  private static ProxyConfig config(Duration minSyncPeriod) {
    return new ProxyConfig(
        "node-a",
        dev.proxima.proxy.plan.RuleSettings.defaults(),
        minSyncPeriod,
        minSyncPeriod.plus(Duration.ofSeconds(30)),
        minSyncPeriod.plus(Duration.ofHours(1)),
        null,
        ProxyConfig.DEFAULT_ZONE_DEMAND_NAMESPACE);
  }

  private int status(int port, String path) throws Exception {
    return get(port, path).statusCode();
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private String lastIpv4Script() {
    for (int i = scripts.size() - 1; i >= 0; i--) {
      if (scripts.get(i).startsWith("add table ip proxima")) {
        return scripts.get(i);
      }
    }
    return "";
  }

  /** Node node-a, Service shop/web 10.96.0.20:80 and one endpoint 10.244.1.5:8080. */
  private void createWebService() {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    client.resource(ClusterObjects.service("shop", "web", "10.96.0.20")).create();
    client.resource(ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5")).create();
  }

  private void moveWebEndpointTo(String ip) {
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace("shop")
        .withName("web-1")
        .edit(
            s ->
                new EndpointSliceBuilder(s)
                    .editFirstEndpoint()
                    .withAddresses(ip)
                    .endEndpoint()
                    .build());
  }

  @Test
  void programsANodeWithoutPodCidrsAtOnceAndSaysWhatItLacks() throws Exception {
    createWebService(); // node-a has no spec.podCIDRs yet
    var nodeCidr =
        new ProxyConfig(
            "node-a",
            dev.proxima.proxy.plan.RuleSettings.defaults()
                .withDetectLocal(dev.proxima.proxy.plan.DetectLocalMode.NODE_CIDR, "", ""),
            Duration.ofMillis(100),
            Duration.ofSeconds(30),
            Duration.ofHours(1),
            null,
            ProxyConfig.DEFAULT_ZONE_DEMAND_NAMESPACE);
    proxy =
        new ProxyServer(
            client,
            nodeCidr,
            ProxyMode.nftables,
            DataPlanes.nftables(nodeCidr.rules(), new PrintingRuleLoader(scripts::add)),
            Host.none(),
            new PrometheusRegistry(),
            Duration.ZERO,
            Clock.systemUTC());
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        CompletableFuture.completedFuture(null));
    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.96.0.20 . tcp . 80"));
    assertThat(proxy.liveExplain(null).sync().get(0).localTraffic())
        .startsWith("None (no local-traffic detection); NodeCIDR is configured");
    assertThat(status(proxy.healthPort(), "/livez")).isEqualTo(200);
  }

  @Test
  void serviceCidrObjectsBecomeTheServiceCidrsSetOfBothFamilies() throws Exception {
    createWebService();
    startProxy();
    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.96.0.20 . tcp . 80"));
    assertThat(lastIpv4Script())
        .as("without ServiceCIDR objects nothing is dropped")
        .doesNotContain("add element ip proxima service-cidrs");

    client.resource(serviceCidr("10.96.0.0/16", "fd00:10:96::/112")).create();

    // The ranges are also inputs of the externalIP policy, so they arrive with a full sync that
    // re-plans every Service.
    await()
        .untilAsserted(
            () ->
                assertThat(List.copyOf(scripts))
                    .anySatisfy(
                        script ->
                            assertThat(script)
                                .containsPattern(
                                    "add element ip proxima service-cidrs\\S* \\{\n\t10.96.0.0/16\n"))
                    .anySatisfy(
                        script ->
                            assertThat(script)
                                .containsPattern(
                                    "add element ip6 proxima service-cidrs\\S* \\{\n\tfd00:10:96::/112\n")));
  }

  @Test
  void aNodeThatJoinsWithAServicesExternalIpAsItsAddressTakesTheExternalIpAway() throws Exception {
    createWebService();
    client
        .services()
        .inNamespace("shop")
        .withName("web")
        .edit(
            service -> {
              service.getSpec().setExternalIPs(List.of("192.168.0.3"));
              return service;
            });
    startProxy();
    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("192.168.0.3 . tcp . 80"));

    client
        .resource(
            new NodeBuilder(ClusterObjects.node("node-b", "zone-b"))
                .withNewStatus()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("192.168.0.3")
                .endAddress()
                .endStatus()
                .build())
        .create();

    // A full sync: the new address re-judges every Service, not only the changed ones.
    await()
        .untilAsserted(
            () ->
                assertThat(lastIpv4Script())
                    .contains("10.96.0.20 . tcp . 80")
                    .doesNotContain("192.168.0.3"));
  }

  @Test
  void programsServicesAsTheyChangeAndServesHealthAndMetrics() throws Exception {
    createWebService();
    startProxy();

    await()
        .untilAsserted(
            () ->
                assertThat(lastIpv4Script())
                    .contains("10.96.0.20 . tcp . 80 . 0 : 10.244.1.5 . 8080"));
    assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(200);
    assertThat(get(proxy.metricsPort(), "/metrics").body())
        .contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"}")
        .contains("kubeproxy_sync_proxy_rules_endpoint_changes_total");

    moveWebEndpointTo("10.244.1.6");

    // The change goes in as a partial transaction: only the endpoint's elements move.
    await()
        .untilAsserted(
            () ->
                assertThat(scripts.get(scripts.size() - 1))
                    .doesNotContain("add table")
                    .contains("delete element ip proxima lb-1")
                    .contains("10.96.0.20 . tcp . 80 . 0 : 10.244.1.6 . 8080"));
  }

  @Test
  void explainLiveIsServedOnLoopbackFromWhatTheSyncsLoaded() throws Exception {
    createWebService();
    proxy = dryRunProxy(Duration.ofMillis(100));
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        CompletableFuture.completedFuture(null));

    await()
        .untilAsserted(
            () ->
                assertThat(get(proxy.explainPort(), "/explain").body())
                    .contains("\"service\" : \"shop/web\"")
                    .contains("10.244.1.5:8080"));
    var json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(get(proxy.explainPort(), "/explain?service=shop%2Fweb").body());
    assertThat(json.path("node").asText()).isEqualTo("node-a");
    assertThat(json.path("sync").path("informersSynced").asBoolean()).isTrue();
    var ipv4 = json.path("sync").path("families").get(0);
    assertThat(ipv4.path("lastFullSync").asText()).isNotEmpty();
    assertThat(ipv4.path("rulesLoaded").asInt()).isPositive();
    // The nftables mode counts; shop/web is not annotated, so it has no figures of its own.
    assertThat(json.path("observedLocality").path("counted").asBoolean()).isTrue();
    assertThat(json.path("servicePorts").get(0).path("observedLocality").isNull()).isTrue();
    assertThat(get(proxy.explainPort(), "/explain?service=shop/web&format=text").body())
        .contains("shop/web port http/TCP")
        .contains("observed:  not counted per Service")
        .contains("Sync state of the proxy on node-a");

    moveWebEndpointTo("10.244.1.6");
    await()
        .untilAsserted(
            () -> {
              var after =
                  new com.fasterxml.jackson.databind.ObjectMapper()
                      .readTree(get(proxy.explainPort(), "/explain").body());
              assertThat(
                      after.path("servicePorts").get(0).path("clusterPolicyEndpoints").toString())
                  .contains("10.244.1.6:8080");
              assertThat(
                      after.path("sync").path("families").get(0).path("lastPartialSync").asText())
                  .isNotEqualTo("null");
            });

    assertThat(get(proxy.explainPort(), "/explain?service=web").statusCode()).isEqualTo(400);
    assertThat(get(proxy.explainPort(), "/explain?format=yaml").statusCode()).isEqualTo(400);
    assertThat(get(proxy.explainPort(), "/explainx").statusCode()).isEqualTo(404);
    var post =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + proxy.explainPort() + "/explain"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
  }

  @Test
  void anExplainAddressOtherPodsCouldReachIsRefusedBeforeAnythingListens() {
    proxy = dryRunProxy(Duration.ofMillis(100));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                proxy.start(
                    new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("0.0.0.0", 0),
                    CompletableFuture.completedFuture(null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be a loopback address");
    assertThat(proxy.explainPort()).isEqualTo(-1);
  }

  @Test
  void metricsAnswerPromptlyWhileManyConnectionsStall() throws Exception {
    startProxy();

    try (var stalled = StalledClients.open("127.0.0.1", proxy.metricsPort(), 8, 2)) {
      for (int i = 0; i < 5; i++) {
        var metrics =
            StalledClients.getWithinThreeSeconds("127.0.0.1", proxy.metricsPort(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("kubeproxy_sync_proxy_rules_endpoint_changes_total");
      }
    }
    assertThat(get(proxy.metricsPort(), "/-/healthy").body()).isEqualTo("Exporter is healthy.\n");
  }

  @Test
  void sysctlsTheProxyCouldNotSetAreNamedOnStatuszAndInAMetric() throws Exception {
    startProxy();

    proxy.untunedSysctls(List.of("net.netfilter.nf_conntrack_max=131072"));

    assertThat(get(proxy.metricsPort(), "/statusz").body())
        .contains("Sysctls not set (set them on the node): net.netfilter.nf_conntrack_max=131072");
    assertThat(get(proxy.metricsPort(), "/metrics").body())
        .contains("proxima_proxy_sysctl_untuned{name=\"net.netfilter.nf_conntrack_max\"} 1");
  }

  @Test
  void theFirstSyncRunsAsSoonAsTheInformersHaveListedWhateverTheMinimumSyncPeriod()
      throws Exception {
    createWebService();

    // Events that arrive while the informers still list must not count as a sync: if they did,
    // the first real sync would wait out the minimum period, here an hour.
    startProxy(Duration.ofHours(1));

    await().atMost(Duration.ofSeconds(30)).until(() -> lastIpv4Script().contains("10.96.0.20"));
  }

  @Test
  void noRulesAreLoadedUntilTheHostIsPreparedThoughTheInformersListedAndAChangeCameSince()
      throws Exception {
    createWebService();
    var hostPrepared = new CompletableFuture<Void>();
    startProxyAfter(hostPrepared);

    await().until(proxy::hasSynced);
    // A change after the first list, which would ask for a sync of its own.
    moveWebEndpointTo("10.244.1.6");
    // Nothing to wait for but time: what must not happen is a sync, which the informers having
    // listed and the change would each have asked for within milliseconds.
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(scripts::isEmpty);

    hostPrepared.complete(null);

    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.244.1.6 . 8080"));
    assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(200);
  }

  @Test
  void aHostPreparationThatFailedStillLetsTheFirstSyncRun() throws Exception {
    createWebService();
    // Whoever prepared the host logged why; the syncs report what stays broken.
    startProxyAfter(
        CompletableFuture.failedFuture(new IllegalStateException("iptables-save crashed")));

    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.244.1.5 . 8080"));
  }

  @Test
  void aNodeBeingDeletedFailsHealthzButNotLivez() throws Exception {
    client
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-a")
                .withFinalizers("test/hold")
                .endMetadata()
                .build())
        .create();
    startProxy();
    await().until(() -> proxy.hasSynced() && !scripts.isEmpty());

    client.nodes().withName("node-a").delete();

    await().untilAsserted(() -> assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(503));
    assertThat(status(proxy.healthPort(), "/livez")).isEqualTo(200);
  }

  /** The node with the taint the cluster autoscaler puts on a node it is removing. */
  private static io.fabric8.kubernetes.api.model.Node beingRemoved(NodeBuilder node) {
    return node.withNewSpec()
        .addNewTaint()
        .withKey("ToBeDeletedByClusterAutoscaler")
        .withValue("1732430000")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .build();
  }

  @Test
  void aProxyStartedOnANodeTheClusterAutoscalerIsRemovingFailsHealthzFromItsFirstSync()
      throws Exception {
    client
        .resource(
            beingRemoved(new NodeBuilder().withNewMetadata().withName("node-a").endMetadata()))
        .create();
    startProxy();
    await().until(() -> proxy.hasSynced() && !scripts.isEmpty());

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(503));
    assertThat(get(proxy.healthPort(), "/healthz").body()).contains("\"nodeEligible\": false");
  }

  @Test
  void aNodeTheClusterAutoscalerIsRemovingFailsHealthzWithTheReasonButNotLivez() throws Exception {
    client
        .resource(new NodeBuilder().withNewMetadata().withName("node-a").endMetadata().build())
        .create();
    startProxy();
    await().until(() -> proxy.hasSynced() && !scripts.isEmpty());
    assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(200);

    client.nodes().withName("node-a").edit(node -> beingRemoved(new NodeBuilder(node)));

    await().untilAsserted(() -> assertThat(status(proxy.healthPort(), "/healthz")).isEqualTo(503));
    assertThat(get(proxy.healthPort(), "/healthz").body())
        .contains("\"nodeEligible\": false")
        .contains("\"reason\": \"node has the ToBeDeletedByClusterAutoscaler taint\"");
    assertThat(status(proxy.healthPort(), "/livez")).isEqualTo(200);
  }

  @Test
  void inIptablesModeTheSamePipelineWritesRestoreBuffersFullThenPartial() throws Exception {
    createWebService();
    proxy =
        new ProxyServer(
            client,
            config(),
            ProxyMode.iptables,
            DataPlanes.of(
                ProxyMode.iptables, config().rules(), new PrintingRuleLoader(scripts::add)),
            Host.none(),
            new PrometheusRegistry(),
            Duration.ZERO,
            Clock.systemUTC());
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        CompletableFuture.completedFuture(null));

    await()
        .untilAsserted(
            () ->
                assertThat(scripts)
                    .anySatisfy(
                        script ->
                            assertThat(script)
                                .startsWith("*mangle")
                                .contains("-j DNAT --to-destination 10.244.1.5:8080")));
    moveWebEndpointTo("10.244.1.6");

    await()
        .untilAsserted(
            () ->
                assertThat(scripts.get(scripts.size() - 1))
                    .startsWith("*filter")
                    .contains("-j DNAT --to-destination 10.244.1.6:8080")
                    .contains("-X PROXIMA-SEP-"));
    assertThat(scripts).noneMatch(script -> script.contains("add table"));
  }
}
