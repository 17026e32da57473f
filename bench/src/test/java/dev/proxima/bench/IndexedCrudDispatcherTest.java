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
 * A watch that starts from a resourceVersion hears of the deletions after it, as informers need
 * when they watch again after their watch timeout; fabric8's own mock forgets them.
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
      // The replay of what the server holds ends with the last object it holds.
      await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADDED kept"));
      return List.copyOf(events);
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
          .contains("DELETED gone", "ADDED kept")
          .doesNotContain("ADDED gone");
    }
  }

  @Test
  void aWatchFromAfterADeletionDoesNotReceiveItAgain() {
    try (var api = new ApiServer()) {
      var services = api.client().services().inNamespace("shop");
      services.resource(service("gone")).create();
      services.withName("gone").delete();
      var kept = services.resource(service("kept")).create();

      assertThat(eventsWatchingFrom(api, kept.getMetadata().getResourceVersion()))
          .doesNotContain("DELETED gone");
    }
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
