package dev.proxima.controller.queue;

import java.time.Clock;
import java.time.Duration;

/**
 * Decides how long a key that failed to reconcile must wait before it is retried.
 *
 * <p>This is the Java counterpart of client-go's {@code workqueue.RateLimiter}. Keeping the retry
 * policy behind an interface lets the queue stay ignorant of how delays are computed, and lets
 * several policies be combined (see {@link MaxOfRateLimiter}) exactly as kube-controller-manager
 * combines a per-key backoff with an overall token bucket.
 *
 * <p>Implementations must be thread-safe: several workers report failures concurrently.
 *
 * @param <K> the key type, usually a namespaced object key
 */
public interface RateLimiter<K> {

  /**
   * Records one more failure of {@code key} and returns how long it must wait before the next try.
   * Calling this has a side effect on purpose: asking "when" is how a failure is counted upstream.
   */
  Duration when(K key);

  /**
   * Clears what is remembered about {@code key}, so its next failure starts from the shortest delay
   * again. Workers call this after a successful reconcile.
   */
  void forget(K key);

  /** How many failures of {@code key} are remembered since it was last forgotten. */
  int numRequeues(K key);

  /**
   * The retry policy of the Proxima controller: the larger of a per-key exponential backoff (1s
   * doubling up to 1000s) and an overall token bucket of 10 qps with a burst of 100.
   *
   * <p>client-go's {@code DefaultControllerRateLimiter} uses 5ms..1000s per key; kube-controller-
   * manager's EndpointSlice controllers start at 1s instead, because a write that just failed
   * against the API server rarely succeeds 5ms later, and Proxima follows that choice.
   */
  static <K> RateLimiter<K> defaultControllerRateLimiter(Clock clock) {
    return new MaxOfRateLimiter<>(
        new ItemExponentialBackoff<K>(
            ItemExponentialBackoff.DEFAULT_BASE_DELAY, ItemExponentialBackoff.DEFAULT_MAX_DELAY),
        new TokenBucketRateLimiter<K>(
            TokenBucketRateLimiter.DEFAULT_QPS, TokenBucketRateLimiter.DEFAULT_BURST, clock));
  }
}
