package dev.proxima.proxy.sync;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the sync at a bounded frequency, as kube-proxy's BoundedFrequencyRunner: requests coalesce,
 * runs are at least {@code minInterval} apart (from the previous run's end), and happen at least
 * every {@code maxInterval}. A failed run is retried after 1 s or {@code minInterval}, doubling per
 * failure in a row up to {@code retryInterval}: a quick retry fixes a passing problem, the backoff
 * keeps a lasting one from running full syncs back to back.
 *
 * <p>Between runs, at most about once a second, the thread calls the idle task, for work due on the
 * sync's thread but not at a sync (deleting chains emptied a second earlier).
 */
public final class SyncRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SyncRunner.class);
  private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  /** The idle task runs at most this often, however often requests wake the thread. */
  static final Duration IDLE_INTERVAL = Duration.ofSeconds(1);

  private final String name;
  private final BooleanSupplier sync;
  private final Runnable idleTask;
  private final Duration minInterval;
  private final Duration retryInterval;
  private final Duration maxInterval;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();

  private boolean requested;
  private Instant retryAt;
  private int failuresInARow;
  private Instant lastRunEnded;
  private Instant periodicAt;
  private Instant idleRan;
  private boolean stopped;
  private Thread thread;

  /** {@code sync} returns false (or throws) when it failed and must be retried. */
  public SyncRunner(
      String name,
      BooleanSupplier sync,
      Duration minInterval,
      Duration retryInterval,
      Duration maxInterval,
      Clock clock,
      Runnable idleTask) {
    if (maxInterval.compareTo(minInterval) < 0) {
      throw new IllegalArgumentException(
          "maxInterval " + maxInterval + " is below minInterval " + minInterval);
    }
    this.name = Objects.requireNonNull(name);
    this.sync = Objects.requireNonNull(sync);
    this.minInterval = minInterval;
    this.retryInterval = retryInterval;
    this.maxInterval = maxInterval;
    this.clock = clock;
    this.idleTask = Objects.requireNonNull(idleTask);
  }

  /** Repeated requests coalesce. */
  public void request() {
    lock.lock();
    try {
      requested = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Runs the sync if one is due now; true when it ran. */
  public boolean tick() {
    lock.lock();
    try {
      if (stopped || !isDue(clock.instant())) {
        return false;
      }
      requested = false;
    } finally {
      lock.unlock();
    }
    boolean succeeded;
    try {
      succeeded = sync.getAsBoolean();
    } catch (RuntimeException failure) {
      log.atError().setCause(failure).addKeyValue("runner", name).log("Sync threw; retrying later");
      succeeded = false;
    }
    lock.lock();
    try {
      var ended = clock.instant();
      lastRunEnded = ended;
      periodicAt = ended.plus(maxInterval);
      failuresInARow = succeeded ? 0 : failuresInARow + 1;
      retryAt = succeeded ? null : ended.plus(retryDelay(failuresInARow));
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Runs the idle task unless stopped, a run is due or it ran recently; true when it ran. */
  public boolean idle() {
    lock.lock();
    try {
      var now = clock.instant();
      if (stopped || isDue(now) || (idleRan != null && now.isBefore(idleRan.plus(IDLE_INTERVAL)))) {
        return false;
      }
      idleRan = now;
    } finally {
      lock.unlock();
    }
    try {
      idleTask.run();
    } catch (RuntimeException failure) {
      log.atWarn().setCause(failure).addKeyValue("runner", name).log("Idle task threw");
    }
    return true;
  }

  private Duration retryDelay(int failuresInARow) {
    var delay = minInterval.compareTo(FIRST_RETRY) > 0 ? minInterval : FIRST_RETRY;
    for (int i = 1; i < failuresInARow && delay.compareTo(retryInterval) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(retryInterval) > 0 ? retryInterval : delay;
  }

  /** Null when nothing is pending and no periodic run is scheduled. */
  public Instant nextDue() {
    lock.lock();
    try {
      Instant due = periodicAt;
      var earliest = lastRunEnded == null ? Instant.MIN : lastRunEnded.plus(minInterval);
      if (requested) {
        due = earliest(due, earliest);
      }
      if (retryAt != null) {
        due = earliest(due, retryAt.isAfter(earliest) ? retryAt : earliest);
      }
      return due;
    } finally {
      lock.unlock();
    }
  }

  private boolean isDue(Instant now) {
    var due = nextDue();
    return due != null && !now.isBefore(due);
  }

  private static Instant earliest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b.isBefore(a) ? b : a;
  }

  public synchronized void start() {
    if (thread != null) {
      return;
    }
    thread = new Thread(this::loop, name);
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    while (true) {
      if (!tick()) {
        idle();
      }
      lock.lock();
      try {
        if (stopped) {
          return;
        }
        var due = nextDue();
        var now = clock.instant();
        if (due == null || now.isBefore(due)) {
          long waitNanos =
              due == null
                  ? TimeUnit.SECONDS.toNanos(1)
                  : Math.min(Duration.between(now, due).toNanos(), TimeUnit.SECONDS.toNanos(1));
          wake.awaitNanos(Math.max(waitNanos, 1));
        }
      } catch (InterruptedException interrupted) {
        return;
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public void close() {
    Thread running;
    lock.lock();
    try {
      stopped = true;
      wake.signalAll();
      running = thread;
    } finally {
      lock.unlock();
    }
    if (running != null && running != Thread.currentThread()) {
      try {
        running.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
