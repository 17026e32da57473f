package dev.proxima.proxy.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SyncRunnerTest {
  private final MutableClock clock = new MutableClock();
  private final AtomicInteger runs = new AtomicInteger();
  private final Deque<Boolean> outcomes = new ArrayDeque<>();

  private SyncRunner runner() {
    return runner(() -> {});
  }

  private SyncRunner runner(Runnable idleTask) {
    return new SyncRunner(
        "test",
        () -> {
          runs.incrementAndGet();
          return outcomes.isEmpty() || outcomes.poll();
        },
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofHours(1),
        clock,
        idleTask);
  }

  @Test
  void theIdleTaskRunsBetweenRunsAtMostOncePerIntervalAndNeverWhenARunIsDue() {
    var idles = new AtomicInteger();
    var runner = runner(idles::incrementAndGet);
    runner.request();
    assertThat(runner.idle()).as("a run is due").isFalse();
    runner.tick();

    assertThat(runner.idle()).isTrue();
    clock.advance(Duration.ofMillis(500));
    assertThat(runner.idle()).as("ran half a second ago").isFalse();
    clock.advance(SyncRunner.IDLE_INTERVAL);
    assertThat(runner.idle()).isTrue();
    assertThat(idles).hasValue(2);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aThrowingIdleTaskDoesNotStopTheRunner() {
    var runner =
        runner(
            () -> {
              throw new IllegalStateException("boom");
            });

    assertThat(runner.idle()).isTrue();
    runner.request();
    assertThat(runner.tick()).isTrue();
  }

  @Test
  void theFirstRequestRunsAtOnce() {
    var runner = runner();
    runner.request();

    assertThat(runner.tick()).isTrue();
    assertThat(runs).hasValue(1);
  }

  @Test
  void requestsWithinTheMinimumIntervalAreBatchedIntoOneRun() {
    var runner = runner();
    runner.request();
    runner.tick();

    runner.request();
    runner.request();
    clock.advance(Duration.ofMillis(400));
    assertThat(runner.tick()).as("too soon").isFalse();
    runner.request();
    clock.advance(Duration.ofMillis(600));

    assertThat(runner.tick()).isTrue();
    assertThat(runner.tick()).as("requests were coalesced").isFalse();
    assertThat(runs).hasValue(2);
  }

  @Test
  void nothingRunsWithoutARequestUntilTheMaximumInterval() {
    var runner = runner();
    runner.request();
    runner.tick();

    clock.advance(Duration.ofMinutes(59));
    assertThat(runner.tick()).isFalse();
    clock.advance(Duration.ofMinutes(1));

    assertThat(runner.tick()).as("periodic run").isTrue();
  }

  @Test
  void failedRunsAreRetriedAfterADelayThatDoublesUpToTheRetryIntervalAndResetsOnSuccess() {
    for (int i = 0; i < 7; i++) {
      outcomes.add(false);
    }
    var runner = runner();
    runner.request();
    runner.tick();

    // 1 s, 2 s, 4 s, 8 s, 16 s, then the retry interval (30 s) however often it fails.
    for (long seconds : new long[] {1, 2, 4, 8, 16, 30, 30}) {
      clock.advance(Duration.ofSeconds(seconds).minusMillis(1));
      assertThat(runner.tick()).as("before %d s", seconds).isFalse();
      clock.advance(Duration.ofMillis(1));
      assertThat(runner.tick()).as("retry after %d s", seconds).isTrue();
    }
    assertThat(runs).hasValue(8);
    clock.advance(Duration.ofSeconds(30));
    assertThat(runner.tick()).as("no retry after success").isFalse();

    outcomes.add(false);
    runner.request();
    clock.advance(Duration.ofSeconds(1));
    runner.tick();
    clock.advance(Duration.ofSeconds(1));
    assertThat(runner.tick()).as("a new failure starts again at 1 s").isTrue();
  }

  @Test
  void aThrowingSyncCountsAsAFailure() {
    var calls = new AtomicInteger();
    var runner =
        new SyncRunner(
            "throws",
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("nft exploded");
              }
              return true;
            },
            Duration.ZERO,
            Duration.ofSeconds(5),
            Duration.ofHours(1),
            clock,
            () -> {});
    runner.request();
    runner.tick();

    clock.advance(Duration.ofSeconds(5));

    assertThat(runner.tick()).isTrue();
    assertThat(calls).hasValue(2);
  }

  @Test
  void aRequestDuringRetryBackoffStillHonoursOnlyTheMinimumInterval() {
    outcomes.add(false);
    var runner = runner();
    runner.request();
    runner.tick();

    runner.request();
    clock.advance(Duration.ofSeconds(1));

    assertThat(runner.tick()).as("a new change does not wait for the retry").isTrue();
  }

  @Test
  void rejectsAMaximumBelowTheMinimum() {
    assertThatThrownBy(
            () ->
                new SyncRunner(
                    "bad",
                    () -> true,
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(1),
                    clock,
                    () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
