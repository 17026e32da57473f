package dev.proxima.controller.queue;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key exponential backoff: the n-th consecutive failure of a key waits {@code base * 2^(n-1)},
 * never more than {@code max}.
 *
 * <p>Mirrors client-go's {@code ItemExponentialFailureRateLimiter}. Backing off per key (rather
 * than globally) means one object that keeps failing, for example because of a validation error,
 * slows only its own retries and does not starve healthy objects.
 *
 * @param <K> the key type
 */
public final class ItemExponentialBackoff<K> implements RateLimiter<K> {

  /** First retry delay used by the Proxima controller (kube-controller-manager uses 1s too). */
  public static final Duration DEFAULT_BASE_DELAY = Duration.ofSeconds(1);

  /** Longest delay, as in client-go: a key broken for hours is still retried every ~17 minutes. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1000);

  private final long baseNanos;
  private final long maxNanos;
  private final Map<K, Integer> failures = new ConcurrentHashMap<>();

  /** Creates a backoff with {@link #DEFAULT_BASE_DELAY} and {@link #DEFAULT_MAX_DELAY}. */
  public ItemExponentialBackoff() {
    this(DEFAULT_BASE_DELAY, DEFAULT_MAX_DELAY);
  }

  /**
   * Creates a backoff starting at {@code baseDelay} and capped at {@code maxDelay}.
   *
   * @throws IllegalArgumentException if {@code baseDelay} is not positive or exceeds {@code
   *     maxDelay}
   */
  public ItemExponentialBackoff(Duration baseDelay, Duration maxDelay) {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (baseDelay.isNegative() || baseDelay.isZero()) {
      throw new IllegalArgumentException("baseDelay must be positive: " + baseDelay);
    }
    if (baseDelay.compareTo(maxDelay) > 0) {
      throw new IllegalArgumentException(
          "baseDelay " + baseDelay + " must not exceed maxDelay " + maxDelay);
    }
    // Nanosecond arithmetic keeps the doubling exact; toNanos() rejects delays beyond ~292 years.
    this.baseNanos = baseDelay.toNanos();
    this.maxNanos = maxDelay.toNanos();
  }

  @Override
  public Duration when(K key) {
    Objects.requireNonNull(key, "key");
    // The count saturates instead of wrapping, so a key failing forever stays at the cap.
    int previous =
        failures.merge(key, 1, (old, one) -> old == Integer.MAX_VALUE ? old : old + one) - 1;
    return Duration.ofNanos(delayAfter(previous));
  }

  @Override
  public void forget(K key) {
    failures.remove(key);
  }

  @Override
  public int numRequeues(K key) {
    return failures.getOrDefault(key, 0);
  }

  private long delayAfter(int previousFailures) {
    // base << n overflows long long before n reaches 64, so compare against max >> n instead of
    // computing the product; once the shift leaves no room the cap applies anyway.
    if (previousFailures >= Long.SIZE - 1 || baseNanos > (maxNanos >> previousFailures)) {
      return maxNanos;
    }
    return baseNanos << previousFailures;
  }
}
