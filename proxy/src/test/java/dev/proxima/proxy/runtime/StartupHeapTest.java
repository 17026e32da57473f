package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import org.junit.jupiter.api.Test;

class StartupHeapTest {
  private final Clock clock = Clock.systemUTC();

  @Test
  void raisesBothFreeRatiosForTheStartWithTheMaximumFirst() {
    var jvm = FakeJvm.asDeployed();

    StartupHeap.raise(jvm, clock);

    assertThat(jvm.changes).containsExactly("MaxHeapFreeRatio=100", "MinHeapFreeRatio=95");
  }

  @Test
  void settlingPutsBackTheOperatorsRatiosWithTheMinimumFirstAndCollectsOnce() {
    var jvm = FakeJvm.asDeployed();
    var heap = StartupHeap.raise(jvm, clock);
    jvm.changes.clear();

    heap.settle();
    heap.settle();

    assertThat(jvm.changes).containsExactly("MinHeapFreeRatio=10", "MaxHeapFreeRatio=20");
    assertThat(jvm.options).containsEntry("MinHeapFreeRatio", "10");
    assertThat(jvm.options).containsEntry("MaxHeapFreeRatio", "20");
    assertThat(jvm.collections).isEqualTo(1);
    assertThat(jvm.afterCollection).as("no longer listening").isNull();
  }

  @Test
  void lowersTheMinimumAsTheHeapFillsSoThatAFullCollectionGrowsItToAboutTheBudget() {
    var jvm = FakeJvm.asDeployed();
    StartupHeap.raise(jvm, clock);
    jvm.changes.clear();

    jvm.collected(4);
    jvm.collected(20);
    jvm.collected(60);
    jvm.collected(40);
    jvm.collected(85);

    assertThat(jvm.changes)
        .as(
            "a third of 358 MiB is 119 MiB, 103 MiB beside a 16 MiB young generation: 4 MiB in use"
                + " leaves the start's 95%%, 20 MiB 80%%, 60 MiB 41%%, 85 MiB 17%%; never up")
        .containsExactly("MinHeapFreeRatio=80", "MinHeapFreeRatio=41", "MinHeapFreeRatio=17");
    assertThat(jvm.options).containsEntry("MaxHeapFreeRatio", "100");
  }

  @Test
  void atTheBudgetTheOperatorsRatiosAreBackAndTheFirstSyncStillGivesTheGrowthBack() {
    var jvm = FakeJvm.asDeployed();
    var heap = StartupHeap.raise(jvm, clock);
    jvm.changes.clear();

    jvm.collected(95);
    jvm.collected(200);

    assertThat(jvm.changes).containsExactly("MinHeapFreeRatio=10", "MaxHeapFreeRatio=20");
    heap.settle();
    assertThat(jvm.collections).isEqualTo(1);
    assertThat(jvm.afterCollection).as("no longer listening").isNull();
  }

  @Test
  void aHeapAlreadyAsLargeAsTheBudgetEndsTheGrowthWhateverIsInUse() {
    var jvm = FakeJvm.asDeployed();
    StartupHeap.raise(jvm, clock);
    jvm.changes.clear();
    jvm.committedBytes = 120L << 20;

    jvm.collected(30);

    assertThat(jvm.changes).containsExactly("MinHeapFreeRatio=10", "MaxHeapFreeRatio=20");
  }

  @Test
  void aMinimumTheJvmRefusesPutsTheRaisedMaximumBackAndStopsListening() {
    var jvm = FakeJvm.asDeployed();
    jvm.refuseOption = "MinHeapFreeRatio";

    var heap = StartupHeap.raise(jvm, clock);
    heap.settle();

    assertThat(jvm.options).containsEntry("MaxHeapFreeRatio", "20");
    assertThat(jvm.afterCollection).isNull();
    assertThat(jvm.collections).isZero();
  }

  @Test
  void ratiosThatCouldNotBePutBackAtTheBudgetAreNotFollowedByACollection() {
    var jvm = FakeJvm.asDeployed();
    var heap = StartupHeap.raise(jvm, clock);
    jvm.refuseChanges = true;
    jvm.collected(200);
    jvm.refuseChanges = false;

    heap.settle();

    assertThat(jvm.collections).isZero();
  }

  @Test
  void leavesAJvmWithAnotherCollectorAlone() {
    var jvm = FakeJvm.asDeployed();
    jvm.options.put("UseSerialGC", "false");

    StartupHeap.raise(jvm, clock).settle();

    assertThat(jvm.changes).isEmpty();
    assertThat(jvm.collections).isZero();
  }

  @Test
  void leavesAJvmAloneThatIgnoresRequestsToCollect() {
    var jvm = FakeJvm.asDeployed();
    jvm.options.put("DisableExplicitGC", "true");

    StartupHeap.raise(jvm, clock).settle();

    assertThat(jvm.changes).isEmpty();
    assertThat(jvm.collections).isZero();
  }

  @Test
  void leavesAJvmAloneThatWouldShrinkItsHeapOnlyInSteps() {
    var jvm = FakeJvm.asDeployed();
    jvm.options.put("ShrinkHeapInSteps", "true");

    StartupHeap.raise(jvm, clock).settle();

    assertThat(jvm.changes).isEmpty();
    assertThat(jvm.collections).isZero();
  }

  @Test
  void leavesRatiosAloneThatAlreadyLetTheHeapGrow() {
    var jvm = FakeJvm.asDeployed();
    jvm.options.put("MaxHeapFreeRatio", "100");

    StartupHeap.raise(jvm, clock).settle();

    assertThat(jvm.changes).isEmpty();
    assertThat(jvm.collections).isZero();
  }

  @Test
  void aJvmThatRefusesTheChangeStartsWithItsOwnRatiosAndIsNeverCollected() {
    var jvm = FakeJvm.asDeployed();
    jvm.refuseChanges = true;

    StartupHeap.raise(jvm, clock).settle();

    assertThat(jvm.options).containsEntry("MinHeapFreeRatio", "10");
    assertThat(jvm.collections).isZero();
  }

  @Test
  void ratiosThatCannotBePutBackAreNotFollowedByACollection() {
    var jvm = FakeJvm.asDeployed();
    var heap = StartupHeap.raise(jvm, clock);
    jvm.refuseChanges = true;

    heap.settle();

    assertThat(jvm.collections).isZero();
  }

  @Test
  void nothingRaisedHasNothingToSettle() {
    StartupHeap.none().settle();
  }
}
