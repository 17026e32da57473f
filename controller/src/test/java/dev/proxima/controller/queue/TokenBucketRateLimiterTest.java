package dev.proxima.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketRateLimiterTest {

  private final MutableClock clock = new MutableClock();
  private final TokenBucketRateLimiter<String> bucket =
      new TokenBucketRateLimiter<>(
          TokenBucketRateLimiter.DEFAULT_QPS, TokenBucketRateLimiter.DEFAULT_BURST, clock);

  @Test
  void theFirstHundredRetriesAreNotDelayed() {
    for (int i = 0; i < 100; i++) {
      assertThat(bucket.when("key-" + i)).as("retry %d", i + 1).isZero();
    }
  }

  @Test
  void theHundredAndFirstRetryWaitsOneHundredMilliseconds() {
    exhaustBurst();

    assertThat(bucket.when("late")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void retriesBeyondTheBurstQueueUpBehindEachOther() {
    exhaustBurst();

    assertThat(bucket.when("first")).isEqualTo(Duration.ofMillis(100));
    assertThat(bucket.when("second")).isEqualTo(Duration.ofMillis(200));
    assertThat(bucket.when("third")).isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void tokensRefillAsTheClockAdvances() {
    exhaustBurst();

    clock.advance(Duration.ofMillis(100));

    assertThat(bucket.when("refilled")).isZero();
    assertThat(bucket.when("next")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aPartialRefillShortensTheWait() {
    exhaustBurst();

    clock.advance(Duration.ofMillis(40));

    assertThat(bucket.when("partly")).isEqualTo(Duration.ofMillis(60));
  }

  @Test
  void refillingNeverExceedsTheBurst() {
    exhaustBurst();

    clock.advance(Duration.ofHours(1));

    exhaustBurst();
    assertThat(bucket.when("over")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aClockSteppingBackwardsAddsNoTokens() {
    exhaustBurst();

    clock.advance(Duration.ofSeconds(-5));
    clock.advance(Duration.ofSeconds(5));

    assertThat(bucket.when("late")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void keysAreNeitherRememberedNorForgotten() {
    bucket.when("a");
    bucket.when("a");
    bucket.forget("a");

    assertThat(bucket.numRequeues("a")).isZero();
    // forget must not hand tokens back: 98 remain after the two above.
    for (int i = 0; i < 98; i++) {
      assertThat(bucket.when("b")).isZero();
    }
    assertThat(bucket.when("b")).isEqualTo(Duration.ofMillis(100));
  }

  private void exhaustBurst() {
    for (int i = 0; i < TokenBucketRateLimiter.DEFAULT_BURST; i++) {
      assertThat(bucket.when("burst-" + i)).isZero();
    }
  }
}
