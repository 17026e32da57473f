package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
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
}
