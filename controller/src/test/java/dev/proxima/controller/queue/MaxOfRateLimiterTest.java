package dev.proxima.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.testing.MutableClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MaxOfRateLimiterTest {

  @Test
  void theLargerDelayWinsWhicheverLimiterReturnsIt() {
    FixedDelay<String> short1 = new FixedDelay<>(Duration.ofSeconds(1));
    FixedDelay<String> long5 = new FixedDelay<>(Duration.ofSeconds(5));

    assertThat(new MaxOfRateLimiter<>(short1, long5).when("a")).isEqualTo(Duration.ofSeconds(5));
    assertThat(new MaxOfRateLimiter<>(long5, short1).when("a")).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void everyLimiterRecordsTheFailure() {
    FixedDelay<String> small = new FixedDelay<>(Duration.ofSeconds(1));
    FixedDelay<String> large = new FixedDelay<>(Duration.ofSeconds(5));
    MaxOfRateLimiter<String> limiter = new MaxOfRateLimiter<>(small, large);

    limiter.when("a");
    limiter.when("a");

    assertThat(small.numRequeues("a")).isEqualTo(2);
    assertThat(large.numRequeues("a")).isEqualTo(2);
  }

  @Test
  void numRequeuesIsTheLargestCountAndForgetReachesEveryLimiter() {
    FixedDelay<String> first = new FixedDelay<>(Duration.ZERO);
    FixedDelay<String> second = new FixedDelay<>(Duration.ZERO);
    second.when("a");
    second.when("a");
    MaxOfRateLimiter<String> limiter = new MaxOfRateLimiter<>(List.of(first, second));
    limiter.when("a");

    assertThat(limiter.numRequeues("a")).isEqualTo(3);

    limiter.forget("a");

    assertThat(first.numRequeues("a")).isZero();
    assertThat(second.numRequeues("a")).isZero();
  }

  @Test
  void theControllerDefaultBacksOffPerKeyFromOneSecond() {
    RateLimiter<String> limiter = RateLimiter.defaultControllerRateLimiter(new MutableClock());

    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(2));
    assertThat(limiter.numRequeues("a")).isEqualTo(2);
  }

  @Test
  void theControllerDefaultIsDominatedByTheTokenBucketWhenManyKeysFail() {
    RateLimiter<String> limiter = RateLimiter.defaultControllerRateLimiter(new MutableClock());
    for (int i = 0; i < 110; i++) {
      limiter.when("key-" + i);
    }

    // The 111th failure in the same instant owes 11 tokens at 10 qps, which beats 1s of backoff.
    assertThat(limiter.when("key-110")).isEqualTo(Duration.ofMillis(1100));
  }

  @Test
  void atLeastOneLimiterIsRequired() {
    assertThatThrownBy(() -> new MaxOfRateLimiter<String>(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Always answers the same delay but counts failures, to observe what the combiner forwards. */
  private static final class FixedDelay<K> implements RateLimiter<K> {
    private final Duration delay;
    private final Map<K, Integer> failures = new HashMap<>();

    FixedDelay(Duration delay) {
      this.delay = delay;
    }

    @Override
    public Duration when(K key) {
      failures.merge(key, 1, Integer::sum);
      return delay;
    }

    @Override
    public void forget(K key) {
      failures.remove(key);
    }

    @Override
    public int numRequeues(K key) {
      return failures.getOrDefault(key, 0);
    }
  }
}
