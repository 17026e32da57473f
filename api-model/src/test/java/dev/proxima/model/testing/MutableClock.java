package dev.proxima.model.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it, so time-based behaviour is deterministic. */
public final class MutableClock extends Clock {

  private final ZoneId zone;
  private volatile Instant now;

  public MutableClock() {
    this(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
  }

  private MutableClock(Instant start, ZoneId zone) {
    this.now = start;
    this.zone = zone;
  }

  /** Moves the clock forward (or backward, for a negative amount). */
  public synchronized void advance(Duration amount) {
    now = now.plus(amount);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** A frozen copy in another zone; queues under test never change zones. */
  @Override
  public Clock withZone(ZoneId zone) {
    return new MutableClock(now, zone);
  }
}
