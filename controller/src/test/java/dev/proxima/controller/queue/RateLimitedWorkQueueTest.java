package dev.proxima.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.testing.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

// A broken queue tends to block take() forever; the timeout turns that hang into a failure.
@Timeout(30)
class RateLimitedWorkQueueTest {

  private final MutableClock clock = new MutableClock();
  private final RecordingMetrics metrics = new RecordingMetrics();
  private final RateLimitedWorkQueue<String> queue =
      new RateLimitedWorkQueue<>(new ItemExponentialBackoff<>(), clock, metrics);
  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void stopTakers() throws InterruptedException {
    queue.shutDown();
    for (Thread thread : threads) {
      thread.interrupt();
      thread.join();
    }
  }

  @Test
  void addingAKeyTwiceQueuesItOnce() throws InterruptedException {
    queue.add("a");
    queue.add("a");

    assertThat(queue.length()).isEqualTo(1);
    assertThat(queue.take()).isEqualTo("a");
    assertThat(queue.length()).isZero();
  }

  @Test
  void keysAreHandedOutInTheOrderTheyWereFirstAdded() throws InterruptedException {
    queue.add("b");
    queue.add("a");
    queue.add("c");
    queue.add("b");

    assertThat(List.of(queue.take(), queue.take(), queue.take())).containsExactly("b", "a", "c");
    assertThat(queue.length()).isZero();
  }

  @Test
  void aKeyAddedWhileBeingProcessedComesBackOnlyAfterDone() throws InterruptedException {
    queue.add("a");
    String taken = queue.take();

    queue.add("a");
    queue.add("a");
    assertThat(queue.length()).isZero();

    queue.done(taken);
    assertThat(queue.length()).isEqualTo(1);
    assertThat(queue.take()).isEqualTo("a");
  }

  @Test
  void aKeyDoneWithoutBeingAddedAgainDoesNotComeBack() throws InterruptedException {
    queue.add("a");
    queue.done(queue.take());

    assertThat(queue.length()).isZero();
  }

  @Test
  void aKeyBeingProcessedIsNotHandedToASecondTaker() throws InterruptedException {
    queue.add("a");
    String first = queue.take();
    queue.add("a");

    Taker second = startTaker();
    second.awaitBlocked();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !second.result.isDone());

    queue.done(first);
    assertThat(second.result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("a");
  }

  @Test
  void concurrentWorkersNeverProcessTheSameKeyAtOnce() {
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      workers.add(
          CompletableFuture.runAsync(
              () -> work(inFlight, overlaps, processed), runnable -> startThread(runnable)));
    }
    for (String key : List.of("a", "b", "c")) {
      queue.add(key);
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> processed.get() >= 5_000);
    queue.shutDown();

    assertThat(CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)))
        .succeedsWithin(Duration.ofSeconds(10));
    assertThat(overlaps).hasValue(0);
  }

  @Test
  void aDelayedKeyBecomesReadyOnlyOnceTheClockReachesItsTime() {
    queue.addAfter("a", Duration.ofSeconds(5));

    clock.advance(Duration.ofMillis(4_999));
    queue.promoteDue();
    assertThat(queue.length()).isZero();

    clock.advance(Duration.ofMillis(1));
    queue.promoteDue();
    assertThat(queue.length()).isEqualTo(1);
  }

  @Test
  void schedulingAKeyAgainSoonerBringsItForward() {
    queue.addAfter("a", Duration.ofSeconds(10));
    queue.addAfter("a", Duration.ofSeconds(2));

    clock.advance(Duration.ofSeconds(2));
    queue.promoteDue();

    assertThat(queue.length()).isEqualTo(1);
  }

  @Test
  void schedulingAKeyAgainLaterNeitherPostponesNorDuplicatesIt() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(2));
    queue.addAfter("a", Duration.ofSeconds(10));

    clock.advance(Duration.ofSeconds(2));
    queue.promoteDue();
    assertThat(queue.length()).isEqualTo(1);
    queue.done(queue.take());

    clock.advance(Duration.ofSeconds(8));
    queue.promoteDue();
    assertThat(queue.length()).isZero();
  }

  @Test
  void aZeroOrNegativeDelayAddsTheKeyImmediately() {
    queue.addAfter("a", Duration.ZERO);
    queue.addAfter("b", Duration.ofSeconds(-1));

    assertThat(queue.length()).isEqualTo(2);
  }

  @Test
  void delayedKeysBecomeReadyInTheOrderOfTheirTimes() throws InterruptedException {
    queue.addAfter("late", Duration.ofSeconds(3));
    queue.addAfter("early", Duration.ofSeconds(1));
    queue.addAfter("tie-first", Duration.ofSeconds(2));
    queue.addAfter("tie-second", Duration.ofSeconds(2));

    clock.advance(Duration.ofSeconds(3));

    assertThat(List.of(queue.take(), queue.take(), queue.take(), queue.take()))
        .containsExactly("early", "tie-first", "tie-second", "late");
  }

  @Test
  void takeNoticesDueKeysWithoutAnExplicitPromote() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));

    assertThat(queue.take()).isEqualTo("a");
  }

  @Test
  void aBlockedTakerGetsADelayedKeyOnceTheClockPassesItsTime() {
    queue.addAfter("a", Duration.ofMinutes(10));
    Taker taker = startTaker();
    taker.awaitBlocked();

    clock.advance(Duration.ofMinutes(10));
    queue.promoteDue();

    assertThat(taker.result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("a");
  }

  @Test
  void onARealClockADelayedKeyBecomesReadyWithoutAnyHelp() {
    RateLimitedWorkQueue<String> realTime =
        new RateLimitedWorkQueue<>(new ItemExponentialBackoff<>(), Clock.systemUTC());
    try {
      Taker taker = startTaker(realTime);
      taker.awaitBlocked();

      realTime.addAfter("a", Duration.ofMillis(50));

      assertThat(taker.result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("a");
    } finally {
      realTime.shutDown();
    }
  }

  @Test
  void addRateLimitedWaitsForTheLimiterAndCountsRequeues() throws InterruptedException {
    queue.addRateLimited("a");
    assertThat(queue.numRequeues("a")).isEqualTo(1);

    clock.advance(Duration.ofMillis(999));
    queue.promoteDue();
    assertThat(queue.length()).isZero();

    clock.advance(Duration.ofMillis(1));
    queue.promoteDue();
    assertThat(queue.length()).isEqualTo(1);

    queue.done(queue.take());
    queue.addRateLimited("a");
    clock.advance(Duration.ofMillis(1_999));
    queue.promoteDue();
    assertThat(queue.length()).as("second retry waits 2s").isZero();

    queue.forget("a");
    assertThat(queue.numRequeues("a")).isZero();
  }

  @Test
  void shutDownWakesABlockedTakerWithNull() {
    Taker taker = startTaker();
    taker.awaitBlocked();

    queue.shutDown();

    assertThat(taker.result).succeedsWithin(Duration.ofSeconds(5)).isNull();
  }

  @Test
  void shutDownWakesATakerWaitingForADelayedKey() {
    queue.addAfter("a", Duration.ofHours(1));
    Taker taker = startTaker();
    taker.awaitBlocked();

    queue.shutDown();

    assertThat(taker.result).succeedsWithin(Duration.ofSeconds(5)).isNull();
  }

  @Test
  void addsAfterShutDownAreIgnored() throws InterruptedException {
    queue.shutDown();

    queue.add("a");
    queue.addAfter("b", Duration.ofSeconds(1));
    queue.addRateLimited("c");
    clock.advance(Duration.ofSeconds(5));
    queue.promoteDue();

    assertThat(queue.isShuttingDown()).isTrue();
    assertThat(queue.length()).isZero();
    assertThat(queue.numRequeues("c")).as("no failure is counted for a dropped retry").isZero();
    assertThat(queue.take()).isNull();
    assertThat(metrics.adds).hasValue(0);
  }

  @Test
  void keysReadyBeforeShutDownAreStillHandedOut() throws InterruptedException {
    queue.add("a");
    queue.addAfter("later", Duration.ofSeconds(1));

    queue.shutDown();
    clock.advance(Duration.ofSeconds(1));

    assertThat(queue.take()).isEqualTo("a");
    assertThat(queue.take()).as("scheduled keys are dropped").isNull();
  }

  @Test
  void aBlockedTakeCanBeInterrupted() {
    Taker taker = startTaker();
    taker.awaitBlocked();

    taker.thread.interrupt();

    assertThat(taker.result)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(InterruptedException.class);
  }

  @Test
  void doneForAKeyThatIsNotBeingProcessedIsIgnored() {
    queue.add("a");

    queue.done("a");
    queue.done("b");

    assertThat(queue.length()).isEqualTo(1);
    assertThat(metrics.workDurations).isEmpty();
  }

  @Test
  void metricsCountAcceptedAddsDepthAndRetries() throws InterruptedException {
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.take();
    queue.addRateLimited("c");

    assertThat(metrics.adds).as("the duplicate add is not counted").hasValue(2);
    assertThat(metrics.depths).containsExactly(1, 2, 1);
    assertThat(metrics.retries).hasValue(1);
  }

  @Test
  void metricsMeasureQueueLatencyAndWorkDurationOnTheClock() throws InterruptedException {
    queue.add("a");
    clock.advance(Duration.ofSeconds(3));
    String taken = queue.take();
    clock.advance(Duration.ofSeconds(2));
    queue.done(taken);

    assertThat(metrics.queueLatencies).containsExactly(Duration.ofSeconds(3));
    assertThat(metrics.workDurations).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void queueLatencyOfARequeuedKeyStartsAtTheAddDuringProcessing() throws InterruptedException {
    queue.add("a");
    queue.take();
    clock.advance(Duration.ofSeconds(1));
    queue.add("a");
    clock.advance(Duration.ofSeconds(4));
    queue.done("a");

    queue.take();

    assertThat(metrics.queueLatencies).containsExactly(Duration.ZERO, Duration.ofSeconds(4));
  }

  private void work(Set<String> inFlight, AtomicInteger overlaps, AtomicInteger processed) {
    try {
      String key;
      while ((key = queue.take()) != null) {
        if (!inFlight.add(key)) {
          overlaps.incrementAndGet();
        }
        // Another event for the same object arrives mid-reconcile, as informers deliver them.
        queue.add(key);
        Thread.yield();
        inFlight.remove(key);
        processed.incrementAndGet();
        queue.done(key);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Taker startTaker() {
    return startTaker(queue);
  }

  private Taker startTaker(RateLimitedWorkQueue<String> target) {
    CompletableFuture<String> result = new CompletableFuture<>();
    Thread thread =
        startThread(
            () -> {
              try {
                result.complete(target.take());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            });
    return new Taker(thread, result);
  }

  private Thread startThread(Runnable body) {
    Thread thread = new Thread(body, "queue-test-" + threads.size());
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
    return thread;
  }

  /** A thread blocked in {@link RateLimitedWorkQueue#take}, and what that call returns. */
  private record Taker(Thread thread, CompletableFuture<String> result) {

    /**
     * Waits until the thread is parked inside take(), so the test acts on a blocked taker. A take
     * that returns at once also ends the wait, leaving the test's own assertion to report it.
     */
    void awaitBlocked() {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  result.isDone()
                      || thread.getState() == Thread.State.WAITING
                      || thread.getState() == Thread.State.TIMED_WAITING);
    }
  }
}
