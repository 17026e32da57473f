package dev.proxima.proxy.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it. */
public final class MutableClock extends Clock {
  private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

  public synchronized void advance(Duration amount) {
    now = now.plus(amount);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
