package dev.proxima.proxy.track;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

class ChangeTrackerTest {
  private final ChangeTracker<String, Service, Projections.ServiceProjection> tracker =
      new ChangeTracker<>(Projections::of);

  private static Service service(String resourceVersion, int port) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .withNewSpec()
        .withClusterIP("10.96.0.1")
        .addNewPort()
        .withPort(port)
        .endPort()
        .endSpec()
        .build();
  }

  @Test
  void anUpdateThatChangesNothingTheProxyUsesIsDropped() {
    var before = service("1", 80);
    var after =
        new ServiceBuilder(service("2", 80))
            .editMetadata()
            .addToAnnotations("note", "x")
            .endMetadata()
            .build();

    assertThat(tracker.update("ns/web", before, after)).isFalse();
    assertThat(tracker.drain()).isEmpty();
  }

  @Test
  void optingInToLocalityCountingIsAChange() {
    var before = service("1", 80);
    var after =
        new ServiceBuilder(service("2", 80))
            .editMetadata()
            .addToAnnotations(dev.proxima.model.Annotations.OBSERVE_LOCALITY, "true")
            .endMetadata()
            .build();

    assertThat(tracker.update("ns/web", before, after)).isTrue();
  }

  @Test
  void keepsTheFirstPreviousAndTheLatestCurrent() {
    tracker.update("ns/web", service("1", 80), service("2", 81));
    tracker.update("ns/web", service("2", 81), service("3", 82));

    var change = tracker.drain().get("ns/web");

    assertThat(change.previous().spec().getPorts().get(0).getPort()).isEqualTo(80);
    assertThat(change.current().spec().getPorts().get(0).getPort()).isEqualTo(82);
  }

  @Test
  void aChangeThatIsUndoneBeforeTheSyncLeavesNothingPending() {
    tracker.update("ns/web", service("1", 80), service("2", 81));

    assertThat(tracker.update("ns/web", service("2", 81), service("3", 80))).isFalse();
    assertThat(tracker.pendingCount()).isZero();
  }

  @Test
  void aServiceCreatedAgainWithTheSameSpecIsAChangeBecauseItsAgeDecidesAddressOwnership() {
    var first = new ServiceBuilder(service("1", 80)).editMetadata().withUid("a").endMetadata();
    var again = new ServiceBuilder(service("9", 80)).editMetadata().withUid("b").endMetadata();

    assertThat(tracker.update("ns/web", first.build(), again.build())).isTrue();
  }

  @Test
  void anAddThenDeleteCancelsOut() {
    tracker.update("ns/web", null, service("1", 80));
    tracker.update("ns/web", service("1", 80), null);

    assertThat(tracker.drain()).isEmpty();
  }

  @Test
  void drainingStartsAfresh() {
    tracker.update("ns/web", null, service("1", 80));

    assertThat(tracker.drain()).containsKey("ns/web");
    assertThat(tracker.drain()).isEmpty();
  }
}
