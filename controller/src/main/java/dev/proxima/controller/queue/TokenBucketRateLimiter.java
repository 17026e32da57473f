package dev.proxima.controller.queue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * An overall token bucket shared by all keys: {@code burst} retries may happen at once, after which
 * retries are spread out to {@code qps} per second.
 *
 * <p>Mirrors client-go's {@code BucketRateLimiter} (a {@code golang.org/x/time/rate} limiter used
 * through {@code Reserve()}). Per-key backoff alone cannot protect the API server when many keys
 * fail at the same moment, for example after an outage; this bucket caps the total retry rate.
 *
 * <p>Like {@code Reserve()}, {@link #when} always takes a token, letting the balance go negative:
 * each caller is told how long until its own token exists, so callers queue up fairly instead of
 * racing for the next refill. The bucket keeps no per-key state, so {@link #forget} does nothing
 * and {@link #numRequeues} is always zero, as upstream.
 *
 * @param <K> the key type
 */
public final class TokenBucketRateLimiter<K> implements RateLimiter<K> {

  /** Sustained retry rate of client-go's default controller rate limiter. */
  public static final double DEFAULT_QPS = 10;

  /** Burst size of client-go's default controller rate limiter. */
  public static final int DEFAULT_BURST = 100;

  private static final double NANOS_PER_SECOND = 1_000_000_000d;

  private final double qps;
  private final int burst;
  private final Clock clock;

  // Guarded by this. A negative balance means tokens already promised to earlier callers.
  private double tokens;
  private Instant refilledAt;

  /**
   * Creates a full bucket.
   *
   * @param qps tokens added per second; must be positive
   * @param burst capacity of the bucket; must be at least 1
   * @param clock source of time, injected so tests can control refills
   */
  public TokenBucketRateLimiter(double qps, int burst, Clock clock) {
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("qps must be positive and finite: " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1: " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.tokens = burst;
    this.refilledAt = clock.instant();
  }

  @Override
  public synchronized Duration when(K key) {
    refill();
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.round(-tokens / qps * NANOS_PER_SECOND));
  }

  @Override
  public void forget(K key) {
    // Nothing to forget: the bucket is shared, not per key.
  }

  @Override
  public int numRequeues(K key) {
    return 0;
  }

  private void refill() {
    Instant now = clock.instant();
    // A clock stepping backwards must not mint or remove tokens; just wait for it to catch up.
    if (!now.isAfter(refilledAt)) {
      return;
    }
    double elapsedSeconds;
    try {
      elapsedSeconds = Duration.between(refilledAt, now).toNanos() / NANOS_PER_SECOND;
    } catch (ArithmeticException tooLongToCountInNanos) {
      elapsedSeconds = Double.POSITIVE_INFINITY;
    }
    tokens = Math.min(burst, tokens + elapsedSeconds * qps);
    refilledAt = now;
  }
}
