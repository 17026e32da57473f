package dev.proxima.controller.queue;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A keyed work queue with the semantics of client-go's rate-limited workqueue, which every
 * Kubernetes controller's reconcile loop is built on.
 *
 * <p>The queue holds keys, not events: a controller only needs to know <em>which</em> object to
 * reconcile, because it reads the current state from its informer cache anyway. That allows the
 * guarantees controllers rely on:
 *
 * <ul>
 *   <li><b>De-duplication.</b> A key that is already waiting is not queued again, so a burst of
 *       events for one object costs one reconcile.
 *   <li><b>One worker per key.</b> A key added while a worker is processing it is only marked dirty
 *       and queued again when that worker calls {@link #done}. Reconciles of one object therefore
 *       never run concurrently, yet the last change is never lost.
 *   <li><b>Delays and rate limiting.</b> {@link #addAfter} schedules a key for later (keeping the
 *       earlier time if it is scheduled twice); {@link #addRateLimited} asks a {@link RateLimiter}
 *       how long a failed key must wait.
 *   <li><b>Fairness.</b> Ready keys are handed out in the order they became ready.
 * </ul>
 *
 * <p>The typical worker loop is: {@link #take}; reconcile; on success {@link #forget}, on failure
 * {@link #addRateLimited}; and in every case {@link #done}.
 *
 * <p>All time comes from the injected {@link Clock}. A delayed key becomes ready once {@code
 * clock.instant()} reaches its time. Blocked takers wake up on their own at the next due time (and
 * at least every {@link #MAX_WAIT}, because waits are measured on the JVM's monotonic timer while
 * due times are on the clock, and the two can drift or the clock can be a test double that only
 * moves when told). {@link #promoteDue} makes due keys ready immediately, which is how tests with a
 * fake clock stay deterministic.
 *
 * <p>After {@link #shutDown} adds are ignored, delayed keys are dropped, and {@link #take} keeps
 * handing out keys that were already ready before returning {@code null}, as client-go does.
 *
 * <p>This class is thread-safe.
 *
 * @param <K> the key type; needs value-based {@code equals} and {@code hashCode}
 */
public final class RateLimitedWorkQueue<K> {

  /** Longest a blocked {@link #take} waits before checking the clock again. */
  public static final Duration MAX_WAIT = Duration.ofSeconds(1);

  private final RateLimiter<K> rateLimiter;
  private final Clock clock;
  private final WorkQueueMetrics metrics;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // Everything below is guarded by lock.

  /** Keys ready to be taken, in the order they became ready. */
  private final ArrayDeque<K> ready = new ArrayDeque<>();

  /** Keys that need processing: every ready key, plus processing keys that were added again. */
  private final Set<K> dirty = new HashSet<>();

  private final Set<K> processing = new HashSet<>();
  private final Map<K, Instant> addedAt = new HashMap<>();
  private final Map<K, Instant> takenAt = new HashMap<>();

  /** Scheduled keys ordered by due time, then by scheduling order so equal times stay FIFO. */
  private final NavigableSet<Scheduled<K>> scheduled =
      new TreeSet<>(
          Comparator.<Scheduled<K>, Instant>comparing(s -> s.dueAt)
              .thenComparingLong(s -> s.sequence));

  private final Map<K, Scheduled<K>> scheduledByKey = new HashMap<>();
  private long nextSequence;
  private boolean shuttingDown;

  /** Creates a queue that reports no metrics. */
  public RateLimitedWorkQueue(RateLimiter<K> rateLimiter, Clock clock) {
    this(rateLimiter, clock, WorkQueueMetrics.NONE);
  }

  /**
   * Creates a queue.
   *
   * @param rateLimiter decides the delay of {@link #addRateLimited}
   * @param clock source of time for delays and latency metrics
   * @param metrics receives observations; use {@link WorkQueueMetrics#NONE} to discard them
   */
  public RateLimitedWorkQueue(RateLimiter<K> rateLimiter, Clock clock, WorkQueueMetrics metrics) {
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /**
   * Queues {@code key} unless it is already waiting. If a worker is processing it, the key is
   * queued again only when that worker calls {@link #done}. Ignored after {@link #shutDown}.
   */
  public void add(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      insert(key);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues {@code key} once {@code delay} has passed on the clock. If the key is already scheduled,
   * the earlier of the two times wins, so a retry can be brought forward but never pushed back. A
   * zero or negative delay adds the key at once. Ignored after {@link #shutDown}.
   */
  public void addAfter(K key, Duration delay) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(delay, "delay");
    lock.lock();
    try {
      schedule(key, delay);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records a failure of {@code key} with the rate limiter and queues the key after the delay it
   * returns. Ignored after {@link #shutDown}.
   */
  public void addRateLimited(K key) {
    Objects.requireNonNull(key, "key");
    if (isShuttingDown()) {
      // Do not count a failure for a retry that will never happen.
      return;
    }
    // The limiter is consulted outside the lock so a slow limiter never blocks takers.
    Duration delay = rateLimiter.when(key);
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      metrics.retried();
      schedule(key, delay);
    } finally {
      lock.unlock();
    }
  }

  /** Makes the rate limiter forget the failures of {@code key}; call it after a success. */
  public void forget(K key) {
    rateLimiter.forget(key);
  }

  /** How many times {@code key} has been retried since it was last forgotten. */
  public int numRequeues(K key) {
    return rateLimiter.numRequeues(key);
  }

  /**
   * Waits for a ready key and marks it as being processed; the caller must pass it to {@link #done}
   * afterwards, whatever the outcome.
   *
   * @return the key, or {@code null} once the queue is shut down and no ready key is left
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public K take() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (true) {
        Instant now = clock.instant();
        promoteDue(now);
        K key = ready.poll();
        if (key != null) {
          dirty.remove(key);
          processing.add(key);
          takenAt.put(key, now);
          metrics.depth(ready.size());
          metrics.queueLatency(nonNegativeBetween(addedAt.remove(key), now));
          return key;
        }
        if (shuttingDown) {
          return null;
        }
        awaitChangeOrNextDue(now);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks {@code key} as no longer being processed. If it was added while it was processed, it is
   * queued again now. Keys that are not being processed are ignored.
   */
  public void done(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      if (!processing.remove(key)) {
        return;
      }
      metrics.workDuration(nonNegativeBetween(takenAt.remove(key), clock.instant()));
      // Re-queued even when shutting down: the add happened before the shutdown, as upstream.
      if (dirty.contains(key)) {
        enqueueReady(key);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves every scheduled key whose time has come on the clock into the ready queue and wakes
   * takers. Takers do this themselves when they wake up; calling it is only needed to make a
   * test-controlled clock take effect without waiting for the next {@link #MAX_WAIT} tick.
   */
  public void promoteDue() {
    lock.lock();
    try {
      promoteDue(clock.instant());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting keys, drops scheduled ones and wakes every blocked {@link #take}. Takers still
   * receive keys that were already ready, then {@code null}.
   */
  public void shutDown() {
    lock.lock();
    try {
      shuttingDown = true;
      scheduled.clear();
      scheduledByKey.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@link #shutDown} has been called. */
  public boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }

  /**
   * True when no key is ready or being processed; keys scheduled for later do not count. A worker
   * that finds it so after {@link #done} has ended a pass over the queue.
   */
  public boolean isIdle() {
    lock.lock();
    try {
      return ready.isEmpty() && processing.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** The number of keys ready to be taken; scheduled and processing keys are not counted. */
  public int length() {
    lock.lock();
    try {
      return ready.size();
    } finally {
      lock.unlock();
    }
  }

  private void insert(K key) {
    if (shuttingDown || !dirty.add(key)) {
      return;
    }
    addedAt.put(key, clock.instant());
    metrics.added();
    // A processing key stays dirty only; done() queues it, so two workers never share a key.
    if (!processing.contains(key)) {
      enqueueReady(key);
    }
  }

  private void enqueueReady(K key) {
    ready.addLast(key);
    metrics.depth(ready.size());
    changed.signal();
  }

  private void schedule(K key, Duration delay) {
    if (shuttingDown) {
      return;
    }
    if (delay.isZero() || delay.isNegative()) {
      insert(key);
      return;
    }
    Instant dueAt = saturatedPlus(clock.instant(), delay);
    Scheduled<K> existing = scheduledByKey.get(key);
    if (existing != null) {
      if (!dueAt.isBefore(existing.dueAt)) {
        return;
      }
      scheduled.remove(existing);
    }
    Scheduled<K> entry = new Scheduled<>(key, dueAt, nextSequence++);
    scheduled.add(entry);
    scheduledByKey.put(key, entry);
    if (scheduled.first() == entry) {
      // Blocked takers computed their timeout from a later due time (or none); let them redo it.
      changed.signalAll();
    }
  }

  private void promoteDue(Instant now) {
    while (!scheduled.isEmpty() && !scheduled.first().dueAt.isAfter(now)) {
      Scheduled<K> due = scheduled.pollFirst();
      scheduledByKey.remove(due.key);
      insert(due.key);
    }
  }

  private void awaitChangeOrNextDue(Instant now) throws InterruptedException {
    if (scheduled.isEmpty()) {
      // Only add, done and shutDown can make a key ready now, and each of them signals.
      changed.await();
      return;
    }
    Instant nextDue = scheduled.first().dueAt;
    Duration wait =
        nextDue.isAfter(saturatedPlus(now, MAX_WAIT)) ? MAX_WAIT : Duration.between(now, nextDue);
    changed.awaitNanos(Math.max(1, wait.toNanos()));
  }

  private static Instant saturatedPlus(Instant instant, Duration delay) {
    try {
      return instant.plus(delay);
    } catch (DateTimeException | ArithmeticException beyondTheEndOfTime) {
      return Instant.MAX;
    }
  }

  private static Duration nonNegativeBetween(Instant from, Instant to) {
    if (from == null || to.isBefore(from)) {
      // A clock stepped backwards; a negative latency would only corrupt histograms.
      return Duration.ZERO;
    }
    return Duration.between(from, to);
  }

  /** A key waiting for its due time; the sequence keeps keys with equal times in FIFO order. */
  private static final class Scheduled<K> {
    final K key;
    final Instant dueAt;
    final long sequence;

    Scheduled(K key, Instant dueAt, long sequence) {
      this.key = key;
      this.dueAt = dueAt;
      this.sequence = sequence;
    }
  }
}
