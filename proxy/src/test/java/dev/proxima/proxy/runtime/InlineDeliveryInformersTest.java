package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.informers.CompactingItemStore;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true, https = false)
class InlineDeliveryInformersTest {
  KubernetesClient client;

  private SharedIndexInformer<Service> informer;

  /** Which thread stored, and which thread handed on, each Service, by name. */
  private final Map<String, Thread> storedOn = new ConcurrentHashMap<>();

  private final Map<String, Thread> handedOnOn = new ConcurrentHashMap<>();
  private final List<String> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (informer != null) {
      informer.stop();
    }
  }

  @Test
  void handlersHearOfEachChangeOnTheThreadThatStoredItInOrderEndingTheListWithOnList() {
    for (var name : List.of("a", "b", "c")) {
      client.resource(ClusterObjects.service("shop", name, "10.96.0.1")).create();
    }
    informer = InlineDeliveryInformers.of(Service.class, client.services().inAnyNamespace(), 0);
    informer.itemStore(
        new CompactingItemStore<>(
            service ->
                storedOn.putIfAbsent(service.getMetadata().getName(), Thread.currentThread())));
    informer.addEventHandler(recordingHandler());

    informer.start().toCompletableFuture().join();
    assertThat(events)
        .as("the first list reaches the handler before the informer counts as started")
        .hasSizeGreaterThanOrEqualTo(4);
    assertThat(events.subList(0, 3)).containsExactlyInAnyOrder("add a", "add b", "add c");
    assertThat(events.get(3)).isEqualTo("list");

    client.resource(ClusterObjects.service("shop", "d", "10.96.0.4")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> events.contains("add d"));

    assertThat(handedOnOn).containsKeys("a", "b", "c", "d");
    handedOnOn.forEach(
        (name, thread) ->
            assertThat(thread)
                .as("the thread that handed on %s", name)
                .isSameAs(storedOn.get(name)));
  }

  private ResourceEventHandler<Service> recordingHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onList(String resourceVersion, boolean unused) {
        events.add("list");
      }

      @Override
      public void onAdd(Service service) {
        var name = service.getMetadata().getName();
        // The mock's watch replays the listed objects: the first store and hand-off of each
        // are the ones compared.
        handedOnOn.putIfAbsent(name, Thread.currentThread());
        events.add("add " + name);
      }

      @Override
      public void onUpdate(Service previous, Service current) {}

      @Override
      public void onDelete(Service service, boolean finalStateUnknown) {}
    };
  }
}
