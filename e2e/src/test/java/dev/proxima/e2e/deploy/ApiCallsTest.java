package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.runtime.ControllerConfig;
import dev.proxima.controller.runtime.HintController;
import dev.proxima.e2e.deploy.RequiredPermissions.Permission;
import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.runtime.Host;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.ProxyServer;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real controller and proxy against an in-process API server that records every request, so
 * {@link RequiredPermissions} (and through {@link ManifestsTest}, the roles in deploy/) follows
 * what the code does: every request must be one a required permission allows, and every required
 * permission must be used.
 */
class ApiCallsTest {
  // The mock server logs each request through java.util.logging; a static reference keeps the
  // logger, and so its level, from being collected.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private KubernetesMockServer server;
  private KubernetesClient seed;
  private final List<Permission> requests = new CopyOnWriteArrayList<>();
  private final List<String> publicInfoRequests = new CopyOnWriteArrayList<>();

  /** What the built-in system:public-info-viewer ClusterRole lets everyone GET. */
  private static final Set<String> PUBLIC_INFO =
      Set.of("/version", "/healthz", "/livez", "/readyz");

  @BeforeEach
  void startApiServer() {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    seed = server.createClient();
  }

  @AfterEach
  void stopApiServer() {
    seed.close();
    try {
      server.destroy();
    } catch (IllegalStateException slowShutdown) {
      // Watch connections that are slow to close; the server stops either way.
    }
  }

  @Test
  void theControllerCallsExactlyTheApiItsRolesGrant() throws Exception {
    for (var zone : List.of("a", "b", "c")) {
      createNode("node-" + zone, "zone-" + zone);
    }
    // Hints to write (an update), and a typo that records an Event on every sync: the first sync
    // creates it, the resync a second later folds the repeat into it (get, then patch). Both
    // Services get conditions (a status patch). The three zones' demand is published.
    createService("checkout", "PreferSameZone");
    createSlice("checkout", "10.244.0.10", "node-a", "zone-a");
    createService("typo", "PreferSameRack");
    createSlice("typo", "10.244.1.10", "node-b", "zone-b");
    // A zone-demand ConfigMap left from an earlier controller: the create is refused, so the
    // controller reads it and replaces its stale shares.
    seed.resource(
            new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withName(RequiredPermissions.ZONE_DEMAND)
                .withNamespace(RequiredPermissions.LEASE_NAMESPACE)
                .endMetadata()
                .withData(Map.of("zone-gone", "1.000"))
                .build())
        .create();
    discardSeeding();

    var expected =
        RequiredPermissions.controller(
            RequiredPermissions.LEASE_NAMESPACE, RequiredPermissions.LEASE_NAME);
    var config =
        new ControllerConfig(
            2,
            Duration.ofSeconds(1),
            15,
            new ControllerConfig.LeaderElectionConfig(
                true,
                RequiredPermissions.LEASE_NAMESPACE,
                RequiredPermissions.LEASE_NAME,
                "replica-1",
                Duration.ofSeconds(4),
                Duration.ofSeconds(3),
                Duration.ofMillis(500)),
            OverwriteGuard.Policy.DEFAULT,
            SliceScope.Slices.AUTO);
    try (var client = server.createClient();
        var controller =
            new HintController(
                client,
                config,
                new ControllerMetrics(new PrometheusRegistry()),
                Clock.systemUTC(),
                () -> {})) {
      controller.start(Duration.ofSeconds(30));
      awaitEveryPermissionUsed(expected);
    }
    record();

    assertExactly(expected);
    assertThat(publicInfoRequests)
        .as("--slices=auto reads the server version")
        .contains("/version");
  }

  @Test
  void theProxyCallsExactlyTheApiItsRolesGrant() throws Exception {
    createNode("node-a", "zone-a");
    createNode("node-b", "zone-b");
    createService("checkout", "PreferSameZone");
    createSlice("checkout", "10.244.0.10", "node-a", "zone-a");
    discardSeeding();

    var scripts = new CopyOnWriteArrayList<String>();
    var config =
        new ProxyConfig(
            "node-a",
            RuleSettings.defaults(),
            Duration.ofMillis(100),
            Duration.ofSeconds(30),
            Duration.ofHours(1),
            null,
            ProxyConfig.DEFAULT_ZONE_DEMAND_NAMESPACE);
    try (var client = server.createClient();
        var proxy =
            new ProxyServer(
                client,
                config,
                ProxyMode.nftables,
                DataPlanes.nftables(config.rules(), new PrintingRuleLoader(scripts::add)),
                Host.none(),
                new PrometheusRegistry(),
                Duration.ZERO,
                Clock.systemUTC())) {
      proxy.start(
          new InetSocketAddress("127.0.0.1", 0),
          new InetSocketAddress("127.0.0.1", 0),
          null,
          CompletableFuture.completedFuture(null));
      awaitEveryPermissionUsed(RequiredPermissions.PROXY);
      var deadline = Instant.now().plusSeconds(30);
      while (scripts.isEmpty() && Instant.now().isBefore(deadline)) {
        Thread.sleep(50);
      }
      assertThat(scripts).as("the proxy synced (dry-run)").isNotEmpty();
    }
    record();

    assertExactly(RequiredPermissions.PROXY);
  }

  private void assertExactly(Set<Permission> expected) {
    assertThat(requests)
        .as("requests no required permission allows")
        .allSatisfy(
            request ->
                assertThat(expected.stream().anyMatch(p -> p.allows(request)))
                    .as(request.toString())
                    .isTrue());
    assertThat(expected)
        .as("required permissions no request used")
        .allSatisfy(
            permission ->
                assertThat(requests.stream().anyMatch(permission::allows))
                    .as(permission.toString())
                    .isTrue());
  }

  private void awaitEveryPermissionUsed(Set<Permission> expected) throws InterruptedException {
    var deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      record();
      if (expected.stream().allMatch(p -> requests.stream().anyMatch(p::allows))) {
        return;
      }
      Thread.sleep(100);
    }
  }

  /** Drops what the server received so far: the test's own seeding. */
  private void discardSeeding() throws InterruptedException {
    while (server.takeRequest(10, TimeUnit.MILLISECONDS) != null) {
      // dropped
    }
  }

  /** Moves what the server received so far into {@link #requests}. */
  private void record() throws InterruptedException {
    io.fabric8.mockwebserver.http.RecordedRequest received;
    while ((received = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
      if (PUBLIC_INFO.contains(URI.create(received.getPath()).getPath())) {
        // Non-resource URLs that system:public-info-viewer grants every client; no role needed.
        publicInfoRequests.add(received.getPath());
        continue;
      }
      requests.add(asPermission(received.getMethod(), received.getPath()));
    }
  }

  /** A request as the RBAC authorizer sees it: verb, group, resource, namespace and name. */
  static Permission asPermission(String method, String target) {
    var uri = URI.create(target);
    var parts = uri.getPath().split("/");
    // /api/v1/... or /apis/GROUP/VERSION/...
    int i = parts[1].equals("api") ? 3 : 4;
    var group = parts[1].equals("api") ? "" : parts[2];
    String namespace = null;
    if (parts.length > i + 2 && parts[i].equals("namespaces")) {
      namespace = parts[i + 1];
      i += 2;
    }
    var resource = parts[i];
    var name = parts.length > i + 1 ? parts[i + 1] : null;
    if (parts.length > i + 2) {
      resource += "/" + parts[i + 2];
    }
    var query = query(uri.getRawQuery());
    boolean watch = "true".equals(query.get("watch"));
    if (name == null && query.containsKey("fieldSelector")) {
      // The authorizer takes a metadata.name field selector as the request's name.
      var selector = query.get("fieldSelector");
      if (selector.startsWith("metadata.name=")) {
        name = selector.substring("metadata.name=".length());
      }
    }
    var verb =
        switch (method) {
          case "GET" -> watch ? "watch" : (parts.length > i + 1 ? "get" : "list");
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> parts.length > i + 1 ? "delete" : "deletecollection";
          default -> method;
        };
    return new Permission(namespace, group, resource, verb, name);
  }

  private static Map<String, String> query(String raw) {
    var query = new HashMap<String, String>();
    if (raw != null) {
      for (var pair : raw.split("&")) {
        var equals = pair.indexOf('=');
        var key = equals < 0 ? pair : pair.substring(0, equals);
        var value = equals < 0 ? "" : pair.substring(equals + 1);
        query.put(key, URLDecoder.decode(value, StandardCharsets.UTF_8));
      }
    }
    return query;
  }

  // --- seeding ---

  private void createNode(String name, String zone) {
    seed.resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("topology.kubernetes.io/zone", zone)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .addToAllocatable("cpu", new io.fabric8.kubernetes.api.model.Quantity("4"))
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("192.168.0." + (name.hashCode() & 0x7f))
                .endAddress()
                .endStatus()
                .build())
        .create();
  }

  private void createService(String name, String trafficDistribution) {
    seed.resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("shop")
                .endMetadata()
                .withNewSpec()
                .withClusterIP("10.96.0." + (10 + (name.hashCode() & 0x3f)))
                .withTrafficDistribution(trafficDistribution)
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withProtocol("TCP")
                .withNewTargetPort(8080)
                .endPort()
                .endSpec()
                .build())
        .create();
  }

  private void createSlice(String service, String address, String node, String zone) {
    seed.resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(service + "-1")
                .withNamespace("shop")
                .addToLabels("kubernetes.io/service-name", service)
                .endMetadata()
                .withAddressType("IPv4")
                .addNewPort()
                .withName("http")
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .withEndpoints(
                    new EndpointBuilder()
                        .withAddresses(address)
                        .withNewConditions()
                        .withReady(true)
                        .endConditions()
                        .withNodeName(node)
                        .withZone(zone)
                        .build())
                .build())
        .create();
  }
}
