package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSpecBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDRBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's informers against the CRUD mock, which lists every object and then, on the watch that
 * follows, sends each one again as ADDED: what the first sync takes in, and what is left after it.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class KubeProxyCacheTest {
  private static final int SERVICES = 40;
  private static final ObjectKey MARKER = new ObjectKey("shop", "marker");

  KubernetesClient client;
  KubernetesMockServer server;

  private final PendingChanges changes = new PendingChanges(Instant.EPOCH);

  /** Holds the Service handler at its first event until opened, as a busy handler thread would. */
  private final CountDownLatch handlerMayGoOn = new CountDownLatch(1);

  /** How often the cache asked for a sync for a Node. */
  private final AtomicInteger nodeEvents = new AtomicInteger();

  private KubernetesClient proxyClient;
  private KubeProxyCache cache;

  @AfterEach
  void stop() {
    handlerMayGoOn.countDown();
    if (cache != null) {
      cache.close();
    }
    if (proxyClient != null) {
      proxyClient.close();
    }
  }

  /** Services shop/s0..s39, each with one endpoint on node-a, and node-a itself. */
  private void createCluster() {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    for (int i = 0; i < SERVICES; i++) {
      client.resource(ClusterObjects.service("shop", "s" + i, "10.96.0." + (i + 1))).create();
      client
          .resource(ClusterObjects.slice("shop", "s" + i, "node-a", "10.244.1." + (i + 1)))
          .create();
    }
  }

  /** The cache as the proxy runs it: its own client, decoding with the proxy's trimming. */
  private KubeProxyCache startCache() {
    proxyClient =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withKubernetesSerialization(TrimOnDecode.serialization())
            .build();
    cache =
        new KubeProxyCache(
            proxyClient,
            "node-a",
            Duration.ZERO,
            changes,
            new KubeProxyCache.Listener() {
              @Override
              public void serviceEvent(int pendingServices) {
                try {
                  handlerMayGoOn.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                  Thread.currentThread().interrupt();
                }
              }

              @Override
              public void endpointsEvent(int pendingSlices) {}

              @Override
              public void nodeEvent() {
                nodeEvents.incrementAndGet();
              }
            },
            null);
    cache.start();
    return cache;
  }

  /** What the partial syncs after the first one would plan, up to a Service created last. */
  private Set<ObjectKey> changedUpToAServiceCreatedNow() {
    client.resource(ClusterObjects.service("shop", "marker", "10.96.1.1")).create();
    var changed = new HashSet<ObjectKey>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              changed.addAll(changes.drainChangedServices());
              return changed.contains(MARKER);
            });
    return changed;
  }

  @Test
  void theCacheHasSyncedOnceItsStoresHoldTheListsAndTheirAdditionsAreNoChange() {
    createCluster();
    var cache = startCache();
    // The Service handler may still be busy with the list's additions: the cache does not wait.
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);
    assertThat(cache.services()).hasSize(SERVICES);
    assertThat(cache.endpointSlices()).hasSize(SERVICES);
    assertThat(cache.node()).isNotNull();
    // What the sync runner does now: a full sync plans every Service from the cache and takes in
    // what is pending.
    changes.drainChangedServices();
    handlerMayGoOn.countDown();

    assertThat(changedUpToAServiceCreatedNow())
        .as("after the first sync only the Service created since is planned again")
        .containsExactly(MARKER);
  }

  @Test
  void theWatchReplayingEveryListedObjectAsAddedChangesNothing() {
    createCluster();
    handlerMayGoOn.countDown();
    var cache = startCache();
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);
    assertThat(changes.drainChangedServices())
        .as("the list's additions: the first sync, a full one, reads them from the store")
        .isEmpty();

    // The mock's watch sends all 40 Services and slices again before the marker.
    assertThat(changedUpToAServiceCreatedNow()).containsExactly(MARKER);
  }

  @Test
  void eachWatchedKindIsListedAndThenFollowedThroughItsWatch() {
    // The proxy's serialization knows only the kinds it watches by name (TrimOnDecode); each must
    // still be listed and then followed through the watch. fabric8 would turn a generic object into
    // the informer's class by a second decode, so what the names spare is shown in
    // TrimOnDecodeTest.
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    client.resource(ClusterObjects.service("shop", "listed", "10.96.0.1")).create();
    client.resource(ClusterObjects.slice("shop", "listed", "node-a", "10.244.1.1")).create();
    client.resource(serviceCidr("listed", "10.96.0.0/16")).create();
    handlerMayGoOn.countDown();
    var cache = startCache();
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);
    await().atMost(Duration.ofSeconds(30)).until(() -> !cache.serviceCidrs().isEmpty());
    assertThat(cache.services()).extracting(s -> s.getMetadata().getName()).contains("listed");
    assertThat(cache.endpointSlices()).hasSize(1);
    assertThat(cache.serviceCidrs()).containsExactly("10.96.0.0/16");

    client.resource(ClusterObjects.service("shop", "added", "10.96.0.2")).create();
    client.resource(ClusterObjects.slice("shop", "added", "node-a", "10.244.1.2")).create();
    client.resource(serviceCidr("added", "fd00:10:96::/112")).create();
    client
        .services()
        .inNamespace("shop")
        .withName("listed")
        .edit(s -> withClusterIp(s, "10.96.0.9"));
    client.nodes().withName("node-a").edit(n -> inZone(n, "zone-b"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(cache.service(new ObjectKey("shop", "added"))).isNotNull();
              assertThat(cache.service(new ObjectKey("shop", "listed")).getSpec().getClusterIP())
                  .isEqualTo("10.96.0.9");
              assertThat(cache.slicesOf(new ObjectKey("shop", "added"))).hasSize(1);
              assertThat(cache.serviceCidrs())
                  .containsExactlyInAnyOrder("10.96.0.0/16", "fd00:10:96::/112");
              assertThat(cache.node().getMetadata().getLabels())
                  .containsEntry(Labels.ZONE, "zone-b");
            });

    client.services().inNamespace("shop").withName("listed").delete();
    client.discovery().v1().endpointSlices().inNamespace("shop").withName("listed-1").delete();
    client.resources(ServiceCIDR.class).withName("listed").delete();
    client.nodes().withName("node-a").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(cache.service(new ObjectKey("shop", "listed"))).isNull();
              assertThat(cache.slicesOf(new ObjectKey("shop", "listed"))).isEmpty();
              assertThat(cache.serviceCidrs()).containsExactly("fd00:10:96::/112");
              assertThat(cache.node()).isNull();
            });
  }

  @Test
  void everyNodesAddressesAreKnownAndTheOwnNodeIsStillThisNodes() {
    client.resource(withAddress(ClusterObjects.node("node-b", "zone-b"), "192.168.0.3")).create();
    client.resource(withAddress(ClusterObjects.node("node-a", "zone-a"), "192.168.0.2")).create();
    handlerMayGoOn.countDown();
    var cache = startCache();
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);

    assertThat(cache.node().getMetadata().getName()).isEqualTo("node-a");
    assertThat(cache.nodeAddresses()).containsExactly("192.168.0.2");
    assertThat(cache.clusterNodeAddresses())
        .isEqualTo(
            ClusterNodeAddresses.of(
                List.of(
                    withAddress(ClusterObjects.node("node-a", "zone-a"), "192.168.0.2"),
                    withAddress(ClusterObjects.node("node-b", "zone-b"), "192.168.0.3"))));
  }

  @Test
  void anotherNodesUpdateThatChangesNoAddressAsksForNoSyncAndANewNodesAddressDoes() {
    // No own Node: each of its updates asks for a sync, and this counts the others'.
    client.resource(withAddress(ClusterObjects.node("node-b", "zone-b"), "192.168.0.3")).create();
    handlerMayGoOn.countDown();
    var cache = startCache();
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);
    assertThat(cache.clusterNodeAddresses().nodeOf(IpAddress.parse("192.168.0.3")))
        .isEqualTo("node-b");

    // As a heartbeat does, every few seconds per Node: the same addresses, the rest changed.
    client.nodes().withName("node-b").edit(n -> withAddress(inZone(n, "zone-c"), "192.168.0.3"));
    client.resource(withAddress(ClusterObjects.node("node-c", "zone-c"), "192.168.0.4")).create();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cache.clusterNodeAddresses().nodeOf(IpAddress.parse("192.168.0.4")) != null);
    // One watch delivers both in order: the update came before the new Node, and asked nothing.
    assertThat(nodeEvents).hasValue(1);
    assertThat(cache.clusterNodeAddresses().nodeOf(IpAddress.parse("192.168.0.4")))
        .isEqualTo("node-c");

    client.nodes().withName("node-c").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> nodeEvents.get() == 2);
    assertThat(cache.clusterNodeAddresses().nodeOf(IpAddress.parse("192.168.0.4"))).isNull();
  }

  @Test
  void theNodeCacheKeepsWhatTheProxyReadsAndNoImagesOrConditions() {
    var node = withAddress(ClusterObjects.node("node-a", "zone-a"), "192.168.0.2");
    node.getMetadata().getLabels().put("team", "shop");
    node.getMetadata().setAnnotations(Map.of("note", "x".repeat(1000)));
    node.setSpec(new NodeSpecBuilder().withPodCIDRs("10.244.0.0/24").build());
    node.getStatus().setImages(List.of(new ContainerImage(List.of("registry/app:1"), 100L)));
    node.getStatus()
        .setConditions(List.of(new NodeCondition(null, null, null, null, "True", "Ready")));
    client.resource(node).create();
    handlerMayGoOn.countDown();
    var cache = startCache();
    await().atMost(Duration.ofSeconds(30)).until(cache::hasSynced);

    var cached = cache.node();
    assertThat(cached.getMetadata().getLabels()).containsOnlyKeys(Labels.ZONE);
    assertThat(cached.getMetadata().getAnnotations()).isEmpty();
    assertThat(cached.getSpec().getPodCIDRs()).containsExactly("10.244.0.0/24");
    assertThat(cached.getStatus().getAddresses()).hasSize(1);
    assertThat(cached.getStatus().getImages()).isEmpty();
    assertThat(cached.getStatus().getConditions()).isEmpty();
  }

  private static Node withAddress(Node node, String address) {
    node.setStatus(
        new NodeStatusBuilder().withAddresses(new NodeAddress(address, "InternalIP")).build());
    return node;
  }

  private static ServiceCIDR serviceCidr(String name, String cidr) {
    return new ServiceCIDRBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withCidrs(cidr)
        .endSpec()
        .build();
  }

  private static Service withClusterIp(Service service, String clusterIp) {
    service.getSpec().setClusterIP(clusterIp);
    service.getSpec().setClusterIPs(List.of(clusterIp));
    return service;
  }

  private static Node inZone(Node node, String zone) {
    node.getMetadata().getLabels().put(Labels.ZONE, zone);
    return node;
  }
}
