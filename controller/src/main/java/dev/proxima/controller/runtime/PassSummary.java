package dev.proxima.controller.runtime;

import dev.proxima.cli.RateLimitedSummary;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's story at INFO: one line per pass (from a Service key being taken off an idle
 * queue until the queue is idle again) with how many Services were reconciled and slices written,
 * instead of a line per slice. On a busy cluster passes are summed at most once per {@link
 * #INTERVAL}; the first pass after start or after winning the Lease is logged at once.
 */
final class PassSummary {
  private static final Logger log = LoggerFactory.getLogger(PassSummary.class);

  /** Passes are summed into one INFO line at most this often. */
  static final Duration INTERVAL = Duration.ofMinutes(1);

  private final Clock clock;
  private final RateLimitedSummary summary;
  private Instant passStarted;
  private long slicesAtStart;
  private long services;
  private long conflicts;
  private long errors;

  PassSummary(Clock clock) {
    this.clock = clock;
    this.summary =
        new RateLimitedSummary(log, "Reconciled Services", Map.of(), "passes", INTERVAL, clock);
  }

  /** A worker takes a key; {@code slicesWritten} is the reconciler's running total. */
  synchronized void started(long slicesWritten) {
    if (passStarted == null) {
      passStarted = clock.instant();
      slicesAtStart = slicesWritten;
    }
  }

  /**
   * A worker finished a key.
   *
   * @param result {@code success}, {@code stale} or {@code error}, as the sync metric counts it
   * @param queueIdle whether nothing is ready or being processed now: the pass is over
   */
  synchronized void finished(String result, boolean queueIdle, long slicesWritten) {
    if (passStarted == null) {
      return;
    }
    services++;
    switch (result) {
      case "stale" -> conflicts++;
      case "error" -> errors++;
      default -> {}
    }
    if (!queueIdle) {
      return;
    }
    summary
        .event()
        .sum("services", services)
        .sum("slicesUpdated", slicesWritten - slicesAtStart)
        .sum("conflicts", conflicts)
        .sum("errors", errors)
        .max("longestPassMs", Duration.between(passStarted, clock.instant()).toMillis())
        .record();
    passStarted = null;
    services = 0;
    conflicts = 0;
    errors = 0;
  }

  void flushIfDue() {
    summary.flushIfDue();
  }
}
