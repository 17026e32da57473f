package dev.proxima.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ItemExponentialBackoffTest {

  private final ItemExponentialBackoff<String> backoff = new ItemExponentialBackoff<>();

  @Test
  void delaysDoubleWithEachFailureStartingAtOneSecond() {
    assertThat(delays("a", 5))
        .containsExactly(seconds(1), seconds(2), seconds(4), seconds(8), seconds(16));
  }

  @Test
  void delaysAreCappedAtOneThousandSeconds() {
    List<Duration> delays = delays("a", 12);

    assertThat(delays.subList(8, 12))
        .containsExactly(seconds(256), seconds(512), seconds(1000), seconds(1000));
  }

  @Test
  void forgettingAKeyRestartsItsBackoffAtOneSecond() {
    delays("a", 4);

    backoff.forget("a");

    assertThat(backoff.numRequeues("a")).isZero();
    assertThat(backoff.when("a")).isEqualTo(seconds(1));
  }

  @Test
  void aHundredFailuresDoNotOverflowTheDelay() {
    List<Duration> delays = delays("a", 100);

    // 1s * 2^10 already exceeds the cap, so every later failure must sit exactly at it; a shift
    // that overflowed or wrapped around would show up as a smaller or negative delay.
    assertThat(delays.subList(10, 100)).containsOnly(seconds(1000));
  }

  @Test
  void aBaseDelayCloseToTheCapDoesNotOverflowOnTheFirstDoubling() {
    Duration max = Duration.ofNanos(Long.MAX_VALUE);
    ItemExponentialBackoff<String> huge = new ItemExponentialBackoff<>(max.minusNanos(1), max);

    assertThat(huge.when("a")).isEqualTo(max.minusNanos(1));
    assertThat(huge.when("a")).isEqualTo(max);
  }

  @Test
  void eachKeyBacksOffOnItsOwn() {
    delays("a", 3);

    assertThat(backoff.when("b")).isEqualTo(seconds(1));
    assertThat(backoff.numRequeues("a")).isEqualTo(3);
    assertThat(backoff.numRequeues("b")).isEqualTo(1);
  }

  @Test
  void numRequeuesCountsFailuresSinceTheLastForget() {
    assertThat(backoff.numRequeues("a")).isZero();

    delays("a", 7);

    assertThat(backoff.numRequeues("a")).isEqualTo(7);
  }

  @Test
  void aBaseDelayLongerThanTheCapIsRejected() {
    assertThatThrownBy(() -> new ItemExponentialBackoff<String>(seconds(2), seconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private List<Duration> delays(String key, int failures) {
    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < failures; i++) {
      delays.add(backoff.when(key));
    }
    return delays;
  }

  private static Duration seconds(long seconds) {
    return Duration.ofSeconds(seconds);
  }
}
