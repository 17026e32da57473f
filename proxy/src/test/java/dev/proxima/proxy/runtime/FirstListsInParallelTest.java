package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.informers.CompactingItemStore;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Services' and the slices' first lists are decoded on two threads, not one after the other:
 * fabric8's Vert.x client hands a response to the event loop of the thread that sent the request.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class FirstListsInParallelTest {
  KubernetesClient client;

  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final Set<Thread> servicesStoredOn = ConcurrentHashMap.newKeySet();
  private final Set<Thread> slicesStoredOn = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void cluster() {
    client.resource(ClusterObjects.service("shop", "web", "10.96.0.20")).create();
    client.resource(ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5")).create();
  }

  @AfterEach
  void stop() {
    informers.forEach(SharedIndexInformer::stop);
  }

  @Test
  void informersStartedFromThreadsOfTheirOwnStoreTheirFirstListsOnDifferentThreads() {
    var services = informer(Service.class, servicesStoredOn);
    var slices = informer(EndpointSlice.class, slicesStoredOn);

    CompletableFuture.allOf(
            KubeProxyCache.startFromItsOwnThread(services, "services"),
            KubeProxyCache.startFromItsOwnThread(slices, "endpointslices"))
        .join();

    assertThat(servicesStoredOn).hasSize(1);
    assertThat(slicesStoredOn).hasSize(1).doesNotContainAnyElementsOf(servicesStoredOn);
  }

  @Test
  void informersStartedFromOneThreadStoreTheirFirstListsOnOne() {
    var services = informer(Service.class, servicesStoredOn);
    var slices = informer(EndpointSlice.class, slicesStoredOn);

    CompletableFuture.allOf(
            services.start().toCompletableFuture(), slices.start().toCompletableFuture())
        .join();

    assertThat(slicesStoredOn)
        .as("what starting each from a thread of its own is for; if this fails, it is not needed")
        .isEqualTo(servicesStoredOn);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> informer(
      Class<T> type, Set<Thread> storedOn) {
    var informer = InlineDeliveryInformers.of(type, client.resources(type).inAnyNamespace(), 0);
    informer.itemStore(new CompactingItemStore<T>(object -> storedOn.add(Thread.currentThread())));
    informers.add(informer);
    return informer;
  }
}
