package dev.proxima.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A watch that starts from a resourceVersion gets what a real API server sends it: the changes and
 * deletions after that version, not everything the server holds. Informers watch from a version
 * after their list and again after each watch timeout; fabric8's own mock replays all it holds and
 * forgets deletions.
 */
class IndexedCrudDispatcherTest {
  private static Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP("10.96.0.10")
        .endSpec()
        .build();
  }

  /** The events a watch from {@code resourceVersion} reports, as "ACTION name". */
  private static List<String> eventsWatchingFrom(ApiServer api, String resourceVersion) {
    var events = new CopyOnWriteArrayList<String>();
    var watcher =
        new Watcher<Service>() {
          @Override
          public void eventReceived(Action action, Service service) {
            events.add(action + " " + service.getMetadata().getName());
          }

          @Override
          public void onClose(WatcherException cause) {}
        };
    try (var watch =
        api.client()
            .services()
            .inNamespace("shop")
            .watch(
                new ListOptionsBuilder().withResourceVersion(resourceVersion).build(), watcher)) {
      // Whatever the watch replays at its start comes before the event of a write made after it.
      api.client().services().inNamespace("shop").resource(service("marker")).create();
      await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADDED marker"));
      return List.copyOf(events.subList(0, events.indexOf("ADDED marker")));
    }
  }

  @Test
  void aWatchFromBeforeADeletionReceivesTheDeletion() {
    try (var api = new ApiServer()) {
      var services = api.client().services().inNamespace("shop");
      var gone = services.resource(service("gone")).create();
      services.resource(service("kept")).create();
      services.withName("gone").delete();

      assertThat(eventsWatchingFrom(api, gone.getMetadata().getResourceVersion()))
          .containsExactly("ADDED kept", "DELETED gone");
    }
  }

  @Test
  void aWatchFromAfterADeletionDoesNotReceiveItAgain() {
    try (var api = new ApiServer()) {
      var services = api.client().services().inNamespace("shop");
      services.resource(service("gone")).create();
      services.withName("gone").delete();
      var kept = services.resource(service("kept")).create();

      assertThat(eventsWatchingFrom(api, kept.getMetadata().getResourceVersion())).isEmpty();
    }
  }

  @Test
  void aWatchFromAVersionGetsOnlyTheObjectsChangedSince() {
    try (var api = new ApiServer()) {
      var services = api.client().services().inNamespace("shop");
      services.resource(service("old")).create();
      var listed = services.resource(service("listed")).create();
      services.resource(service("newer")).create();

      assertThat(eventsWatchingFrom(api, listed.getMetadata().getResourceVersion()))
          .containsExactly("ADDED newer");
    }
  }

  @Test
  void readsTheStoredObjectsOwnResourceVersion() {
    assertThat(
            IndexedCrudDispatcher.resourceVersionIn(
                "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"17\"}}"))
        .isEqualTo(17);
  }

  @Test
  void readsTheResourceVersionAWatchStartsFrom() {
    assertThat(
            IndexedCrudDispatcher.resourceVersionOf(
                "/api/v1/services?allowWatchBookmarks=true&resourceVersion=42&watch=true"))
        .isEqualTo(42);
    assertThat(IndexedCrudDispatcher.resourceVersionOf("/api/v1/services?watch=true"))
        .isEqualTo(-1);
  }
}
