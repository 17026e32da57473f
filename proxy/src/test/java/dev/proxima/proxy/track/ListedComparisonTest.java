package dev.proxima.proxy.track;

import static dev.proxima.proxy.track.VersionedObjects.service;
import static dev.proxima.proxy.track.VersionedObjects.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListedComparisonTest {
  private final List<Service> services = new ArrayList<>();
  private final List<EndpointSlice> slices = new ArrayList<>();
  private final ListedComparison listed = new ListedComparison();

  ListedComparisonTest() {
    for (int i = 0; i < 5; i++) {
      services.add(service("svc" + i, String.valueOf(10 + i)));
      slices.add(slice("svc" + i + "-a", "svc" + i, String.valueOf(50 + i)));
    }
  }

  private ObjectVersions.Saved savedFromTheseObjects() {
    return ObjectVersions.Saved.of(ObjectVersions.of(services, slices));
  }

  private void listEverything() {
    services.forEach(listed::serviceListed);
    slices.forEach(listed::sliceListed);
  }

  @Test
  void objectsListedAfterTheStampsWereReadAreFoundInThemAsTheyCome() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);

    listEverything();

    assertThat(listed.verdict(saved)).contains(true);
  }

  @Test
  void objectsListedBeforeTheStampsWereReadAreComparedWhenTheyArrive() {
    var saved = savedFromTheseObjects();
    listed.serviceListed(services.get(0));
    slices.forEach(listed::sliceListed);
    assertThat(listed.verdict(saved)).as("not compared with these stamps yet").isEmpty();

    listed.compareWith(saved);
    services.subList(1, services.size()).forEach(listed::serviceListed);

    assertThat(listed.verdict(saved)).contains(true);
  }

  @Test
  void aSliceRewrittenWhileTheProxyWasDownIsADifference() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    slices.set(3, slice("svc3-a", "svc3", "999"));

    listEverything();

    assertThat(listed.verdict(saved)).contains(false);
  }

  @Test
  void aServiceDeletedOrCreatedWhileTheProxyWasDownIsADifference() {
    var saved = savedFromTheseObjects();
    var fewer = new ListedComparison();
    fewer.compareWith(saved);
    services.subList(1, services.size()).forEach(fewer::serviceListed);
    slices.forEach(fewer::sliceListed);
    listed.compareWith(saved);
    listEverything();
    listed.serviceListed(service("new", "77"));

    assertThat(fewer.verdict(saved)).as("one Service fewer").contains(false);
    assertThat(listed.verdict(saved)).as("one Service more").contains(false);
  }

  @Test
  void aSliceDeletedWhileTheProxyWasDownIsADifferenceThoughEveryServiceIsUnchanged() {
    slices.add(slice("svc2-b", "svc2", "80"));
    var saved = savedFromTheseObjects();
    slices.remove(slices.size() - 1);
    listed.compareWith(saved);

    listEverything();

    assertThat(listed.verdict(saved)).contains(false);
  }

  @Test
  void withNoDataPlaneReadingStampsTheObjectsListedAreNotHeld() {
    var noneAwaited = new ListedComparison();
    noneAwaited.closeUnlessAwaited();
    var awaited = new ListedComparison();
    awaited.awaitStamps();
    awaited.awaitStamps();
    awaited.closeUnlessAwaited();
    services.forEach(awaited::serviceListed);
    slices.forEach(awaited::sliceListed);
    awaited.noStamps();
    var saved = savedFromTheseObjects();

    noneAwaited.compareWith(saved);
    assertThat(noneAwaited.verdict(saved)).as("closed at the start").isEmpty();
    awaited.compareWith(saved);
    assertThat(awaited.verdict(saved))
        .as("one family still reading offers its stamps")
        .contains(true);

    var neither = new ListedComparison();
    neither.awaitStamps();
    neither.awaitStamps();
    neither.noStamps();
    neither.noStamps();
    neither.compareWith(saved);
    assertThat(neither.verdict(saved)).as("closed once both said they have none").isEmpty();
  }

  @Test
  void anyChangeAfterAFirstListLeavesTheVerdictToTheFirstSync() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    listEverything();

    listed.sliceChanged();

    assertThat(listed.verdict(saved)).isEmpty();
  }

  @Test
  void onlyTheVeryStampsComparedWithHaveAVerdict() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    listEverything();

    var equalButRead = savedFromTheseObjects();
    listed.compareWith(equalButRead);

    assertThat(listed.verdict(equalButRead)).isEmpty();
    assertThat(listed.verdict(saved)).contains(true);
  }

  @Test
  void aClosedComparisonHasNoVerdictAndComparesNothingMore() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    listEverything();

    listed.close();

    assertThat(listed.verdict(saved)).isEmpty();
    var none = ListedComparison.none();
    none.compareWith(saved);
    assertThat(none.verdict(saved)).isEmpty();
  }

  @Test
  void aSnapshotTakesTheListedVerdictWithoutComparingItsObjects() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    listEverything();
    // The snapshot's own objects differ: only a comparison made while listing says they match.
    var rewritten = new ArrayList<>(slices);
    rewritten.set(0, slice("svc0-a", "svc0", "999"));
    var snapshot = new ObjectVersions.Snapshot(services, rewritten, listed);

    var comparison = snapshot.comparing(saved);

    assertThat(comparison.decided()).isTrue();
    assertThat(comparison.madeWhileListing()).isTrue();
    assertThat(comparison.matches(() -> -1)).isTrue();
    assertThat(new ObjectVersions.Snapshot(services, rewritten).comparing(saved).matches(() -> 0))
        .as("compared object by object")
        .isFalse();
  }

  @Test
  void theOtherFamilysEqualStampsTakeTheListedOutcomeEvenAfterAChange() {
    var saved = savedFromTheseObjects();
    listed.compareWith(saved);
    listEverything();
    var snapshot = new ObjectVersions.Snapshot(services, slices, listed);
    assertThat(snapshot.comparing(saved).matches(() -> -1)).isTrue();

    listed.serviceChanged();
    var secondFamily = snapshot.comparing(saved);

    assertThat(secondFamily.decided()).isTrue();
    assertThat(secondFamily.madeWhileListing()).isTrue();
  }
}
