package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.api.model.Node;
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
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
              public void nodeEvent() {}
            });
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
