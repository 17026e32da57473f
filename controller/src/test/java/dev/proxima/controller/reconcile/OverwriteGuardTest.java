package dev.proxima.controller.reconcile;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.slice;
import static dev.proxima.controller.testing.Fixtures.withHints;
import static dev.proxima.controller.testing.Fixtures.zoneHint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OverwriteGuardTest {
  private final MutableClock clock = new MutableClock();
  private final OverwriteGuard guard =
      new OverwriteGuard(
          new OverwriteGuard.Policy(3, Duration.ofMinutes(5), Duration.ofMinutes(10)), clock);

  private static EndpointSlice version(String resourceVersion, boolean hinted) {
    var endpoint = ready("10.0.0.1", "zone-a", "n1");
    var slice = slice("s1", "svc", hinted ? withHints(endpoint, zoneHint("zone-a")) : endpoint);
    return new EndpointSliceBuilder(slice)
        .editMetadata()
        .withUid("uid-1")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  @Test
  void letsTheFirstWriteOfASliceThrough() {
    assertThat(guard.beforeWrite(version("1", false)).verdict())
        .isEqualTo(OverwriteGuard.Verdict.WRITE);
  }

  @Test
  void backsOffAfterTheThirdRevertWithinTheWindow() {
    int version = 1;
    for (int revert = 1; revert <= 2; revert++) {
      assertThat(guard.beforeWrite(version(String.valueOf(version++), false)).verdict())
          .isEqualTo(OverwriteGuard.Verdict.WRITE);
      guard.written(version(String.valueOf(version++), true));
      clock.advance(Duration.ofSeconds(10));
    }
    assertThat(guard.beforeWrite(version(String.valueOf(version++), false)).verdict())
        .as("third revert")
        .isEqualTo(OverwriteGuard.Verdict.WRITE);
    guard.written(version(String.valueOf(version++), true));

    var decision = guard.beforeWrite(version(String.valueOf(version++), false));

    assertThat(decision.verdict()).isEqualTo(OverwriteGuard.Verdict.BACK_OFF_STARTED);
    assertThat(decision.retryAfter()).isEqualTo(Duration.ofMinutes(10));
    clock.advance(Duration.ofMinutes(4));
    var during = guard.beforeWrite(version(String.valueOf(version++), false));
    assertThat(during.verdict()).isEqualTo(OverwriteGuard.Verdict.BACKING_OFF);
    assertThat(during.retryAfter()).isEqualTo(Duration.ofMinutes(6));
  }

  @Test
  void writesAgainOnceTheBackOffHasPassed() {
    for (int i = 0; i < 4; i++) {
      guard.beforeWrite(version(String.valueOf(2 * i + 1), false));
      guard.written(version(String.valueOf(2 * i + 2), true));
    }
    assertThat(guard.beforeWrite(version("20", false)).verdict())
        .isEqualTo(OverwriteGuard.Verdict.BACKING_OFF);

    clock.advance(Duration.ofMinutes(10));

    assertThat(guard.beforeWrite(version("21", false)).verdict())
        .isEqualTo(OverwriteGuard.Verdict.WRITE);
  }

  @Test
  void revertsSpreadBeyondTheWindowDoNotAddUp() {
    for (int i = 0; i < 6; i++) {
      assertThat(guard.beforeWrite(version(String.valueOf(2 * i + 1), false)).verdict())
          .isEqualTo(OverwriteGuard.Verdict.WRITE);
      guard.written(version(String.valueOf(2 * i + 2), true));
      clock.advance(Duration.ofMinutes(3));
    }
  }

  @Test
  void aNewVersionThatKeptProximasHintsIsNoRevert() {
    // kube-controller-manager rewrites slices for endpoint changes with the same hints.
    for (int i = 0; i < 5; i++) {
      guard.written(version(String.valueOf(2 * i + 1), true));
      assertThat(guard.beforeWrite(version(String.valueOf(2 * i + 2), true)).verdict())
          .isEqualTo(OverwriteGuard.Verdict.WRITE);
    }
  }

  @Test
  void theSameVersionProximaWroteIsNoRevert() {
    for (int i = 0; i < 5; i++) {
      guard.written(version("7", true));
      assertThat(guard.beforeWrite(version("7", true)).verdict())
          .isEqualTo(OverwriteGuard.Verdict.WRITE);
    }
  }

  @Test
  void aCacheStillShowingTheVersionProximaReplacedIsNotWrittenOverNorCountedAsARevert() {
    // Another event (a Service status write, say) brings the Service back before the watch has
    // delivered Proxima's own write: the cache still holds the unhinted version it replaced.
    for (int i = 0; i < 5; i++) {
      guard.written(version("8", true), "3");
      var decision = guard.beforeWrite(version("3", false));
      assertThat(decision.verdict()).isEqualTo(OverwriteGuard.Verdict.CACHE_BEHIND);
      assertThat(decision.retryAfter()).isEqualTo(OverwriteGuard.CACHE_CATCH_UP);
    }
    // Five of them started no back-off: once caught up, a later version is written as usual.
    assertThat(guard.beforeWrite(version("9", true)).verdict())
        .isEqualTo(OverwriteGuard.Verdict.WRITE);
  }

  private static EndpointSlice hintedSlice(String uid, String service, int endpoints) {
    var list = new io.fabric8.kubernetes.api.model.discovery.v1.Endpoint[endpoints];
    for (int i = 0; i < endpoints; i++) {
      list[i] =
          withHints(ready("10.0." + i / 256 + "." + i % 256, "zone-a", "n1"), zoneHint("zone-a"));
    }
    return new EndpointSliceBuilder(slice(uid, service, list))
        .editMetadata()
        .withUid(uid)
        .withResourceVersion("1")
        .endMetadata()
        .build();
  }

  @Test
  void slicesDeletedThroughChurnAreForgottenAtTheNextReconcileOfTheirService() {
    var service = new ObjectKey(dev.proxima.controller.testing.Fixtures.NAMESPACE, "svc");
    var alive = new java.util.ArrayDeque<EndpointSlice>();
    for (int i = 0; i < 3_000; i++) {
      var created = hintedSlice("uid-" + i, "svc", 20);
      guard.written(created, "0");
      alive.addLast(created);
      if (alive.size() > 5) {
        alive.removeFirst(); // deleted: the Service is reconciled with the slices still there
        guard.retainOnly(service, alive);
      }
      assertThat(guard.size()).isLessThanOrEqualTo(6);
    }
    guard.forget(service);

    assertThat(guard.size()).as("the Service is gone").isZero();
  }

  @Test
  void theNumberOfSlicesRememberedIsBoundedWhateverTheChurn() {
    var bounded =
        new OverwriteGuard(
            new OverwriteGuard.Policy(3, Duration.ofMinutes(5), Duration.ofMinutes(10)),
            clock,
            100);
    for (int i = 0; i < 5_000; i++) {
      // Every slice of its own Service, never reconciled again: only the bound keeps memory flat.
      bounded.written(hintedSlice("uid-" + i, "svc-" + i, 5), "0");
      assertThat(bounded.size()).isLessThanOrEqualTo(100);
    }
    // The latest slices are the ones still known: a revert of one of them is still noticed.
    var latest = hintedSlice("uid-4999", "svc-4999", 5);
    var reverted = new EndpointSliceBuilder(version("x", false)).build();
    assertThat(bounded.size()).isEqualTo(100);
    assertThat(bounded.beforeWrite(latest).verdict()).isEqualTo(OverwriteGuard.Verdict.WRITE);
    assertThat(reverted).isNotNull();
  }

  @Test
  void aNewVersionWithOtherEndpointsIsTheSliceControllersWorkNotARevert() {
    for (int i = 0; i < 5; i++) {
      guard.written(version(String.valueOf(2 * i + 1), true));
      var moved =
          new EndpointSliceBuilder(slice("s1", "svc", ready("10.0.9." + i, "zone-a", "n1")))
              .editMetadata()
              .withUid("uid-1")
              .withResourceVersion(String.valueOf(2 * i + 2))
              .endMetadata()
              .build();
      assertThat(guard.beforeWrite(moved).verdict()).isEqualTo(OverwriteGuard.Verdict.WRITE);
    }
  }

  private static EndpointSlice churned(
      String resourceVersion, boolean hinted, String... addresses) {
    var endpoints = new io.fabric8.kubernetes.api.model.discovery.v1.Endpoint[addresses.length];
    for (int i = 0; i < addresses.length; i++) {
      var endpoint = ready(addresses[i], "zone-a", "n1");
      endpoints[i] = hinted ? withHints(endpoint, zoneHint("zone-a")) : endpoint;
    }
    return new EndpointSliceBuilder(slice("s1", "svc", endpoints))
        .editMetadata()
        .withUid("uid-1")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  /**
   * A rival writer that strips Proxima's hints while pods come and go: every version has other
   * addresses, but the endpoints that stayed lost the hints Proxima wrote, so each is a revert.
   */
  @Test
  void aRevertIsCountedEvenWhenPodChurnChangedTheAddressesToo() {
    int version = 1;
    OverwriteGuard.Decision decision = null;
    for (int revert = 0; revert < 3; revert++) {
      guard.written(churned(String.valueOf(version++), true, "10.0.0.1", "10.0.1." + revert));
      clock.advance(Duration.ofSeconds(10));
      decision =
          guard.beforeWrite(
              churned(String.valueOf(version++), false, "10.0.0.1", "10.0.2." + revert));
    }

    assertThat(decision.verdict()).isEqualTo(OverwriteGuard.Verdict.BACK_OFF_STARTED);
  }

  @Test
  void podChurnThatKeepsTheHintsOfTheEndpointsThatStayedIsNoRevert() {
    int version = 1;
    for (int i = 0; i < 5; i++) {
      guard.written(churned(String.valueOf(version++), true, "10.0.0.1", "10.0.1." + i));
      // One pod went, another came without hints yet: the slice controller's work.
      var churned =
          new EndpointSliceBuilder(
                  slice(
                      "s1",
                      "svc",
                      withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-a")),
                      ready("10.0.2." + i, "zone-a", "n1")))
              .editMetadata()
              .withUid("uid-1")
              .withResourceVersion(String.valueOf(version++))
              .endMetadata()
              .build();
      assertThat(guard.beforeWrite(churned).verdict()).isEqualTo(OverwriteGuard.Verdict.WRITE);
    }
  }
}
