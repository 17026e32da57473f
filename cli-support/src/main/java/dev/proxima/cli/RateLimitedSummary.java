package dev.proxima.cli;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * Adds up frequent events and logs them as one INFO line at most once per interval, so a busy
 * cluster gets a steady summary instead of a flood. On a quiet one the first event after a calm
 * interval is logged at once; events within an interval of the last line wait for {@link
 * #flushIfDue()}, which a periodic task calls.
 */
public final class RateLimitedSummary {
  private final Logger log;
  private final String message;
  private final String countKey;
  private final Map<String, Object> fixed;
  private final Duration interval;
  private final Clock clock;
  private final Map<String, Long> sums = new LinkedHashMap<>();
  private final Map<String, Long> maxima = new LinkedHashMap<>();
  private Instant lastLogged;
  private Instant firstPending;
  private long events;

  /**
   * @param fixed key-values every line carries first, e.g. the IP family
   * @param countKey the key of the number of events the line sums up, e.g. {@code syncs}
   */
  public RateLimitedSummary(
      Logger log,
      String message,
      Map<String, Object> fixed,
      String countKey,
      Duration interval,
      Clock clock) {
    this.log = Objects.requireNonNull(log);
    this.message = Objects.requireNonNull(message);
    this.countKey = Objects.requireNonNull(countKey);
    this.fixed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fixed));
    this.interval = interval;
    this.clock = clock;
  }

  /** One event to count. */
  public Event event() {
    return new Event();
  }

  /** The figures of one event; {@link #record()} adds them to the summary. */
  public final class Event {
    private final Map<String, Long> add = new LinkedHashMap<>();
    private final Map<String, Long> max = new LinkedHashMap<>();

    private Event() {}

    /** Adds to a figure the line shows as a total. */
    public Event sum(String key, long amount) {
      add.merge(key, amount, Long::sum);
      return this;
    }

    /** A figure the line shows as its largest value. */
    public Event max(String key, long value) {
      max.merge(key, value, Math::max);
      return this;
    }

    public void record() {
      RateLimitedSummary.this.record(this);
    }
  }

  private synchronized void record(Event event) {
    var now = clock.instant();
    if (events == 0) {
      firstPending = now;
    }
    events++;
    event.add.forEach((key, amount) -> sums.merge(key, amount, Long::sum));
    event.max.forEach((key, value) -> maxima.merge(key, value, Math::max));
    if (due(now)) {
      emit(now);
    }
  }

  /** Logs what has added up if the interval since the last line has passed. */
  public synchronized void flushIfDue() {
    var now = clock.instant();
    if (events > 0 && due(now)) {
      emit(now);
    }
  }

  private boolean due(Instant now) {
    return lastLogged == null || !now.isBefore(lastLogged.plus(interval));
  }

  private void emit(Instant now) {
    var line = log.atInfo();
    for (var entry : fixed.entrySet()) {
      line = line.addKeyValue(entry.getKey(), entry.getValue());
    }
    line = line.addKeyValue(countKey, events);
    for (var entry : sums.entrySet()) {
      line = line.addKeyValue(entry.getKey(), entry.getValue());
    }
    for (var entry : maxima.entrySet()) {
      line = line.addKeyValue(entry.getKey(), entry.getValue());
    }
    line.addKeyValue("since", firstPending).log(message);
    lastLogged = now;
    events = 0;
    sums.clear();
    maxima.clear();
  }
}
