package dev.proxima.controller.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Combines several limiters by waiting for the longest of their delays.
 *
 * <p>Mirrors client-go's {@code MaxOfRateLimiter}, which is how {@code
 * DefaultControllerRateLimiter} layers a per-key backoff over an overall token bucket: a key is
 * retried only when every policy allows it. Every limiter is consulted on each failure (not only
 * until the largest is found) because consulting is how limiters count failures and spend tokens.
 *
 * @param <K> the key type
 */
public final class MaxOfRateLimiter<K> implements RateLimiter<K> {

  private final List<RateLimiter<K>> limiters;

  /**
   * Creates a limiter that waits for the longest delay among {@code limiters}.
   *
   * @throws IllegalArgumentException if no limiter is given
   */
  @SafeVarargs
  public MaxOfRateLimiter(RateLimiter<K>... limiters) {
    // Copied element by element: handing the generic array on would void @SafeVarargs.
    List<RateLimiter<K>> copy = new ArrayList<>(limiters.length);
    for (RateLimiter<K> limiter : limiters) {
      copy.add(limiter);
    }
    this.limiters = validated(copy);
  }

  /**
   * Creates a limiter that waits for the longest delay among {@code limiters}.
   *
   * @throws IllegalArgumentException if the list is empty
   */
  public MaxOfRateLimiter(List<? extends RateLimiter<K>> limiters) {
    this.limiters = validated(limiters);
  }

  private static <K> List<RateLimiter<K>> validated(List<? extends RateLimiter<K>> limiters) {
    Objects.requireNonNull(limiters, "limiters");
    if (limiters.isEmpty()) {
      throw new IllegalArgumentException("at least one rate limiter is required");
    }
    return List.copyOf(limiters);
  }

  @Override
  public Duration when(K key) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<K> limiter : limiters) {
      Duration delay = limiter.when(key);
      if (delay.compareTo(longest) > 0) {
        longest = delay;
      }
    }
    return longest;
  }

  @Override
  public void forget(K key) {
    for (RateLimiter<K> limiter : limiters) {
      limiter.forget(key);
    }
  }

  @Override
  public int numRequeues(K key) {
    int most = 0;
    for (RateLimiter<K> limiter : limiters) {
      most = Math.max(most, limiter.numRequeues(key));
    }
    return most;
  }
}
