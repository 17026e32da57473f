package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedSummaryTest {
  /** A clock the test moves. */
  private static final class SteppedClock extends Clock {
    Instant now = Instant.parse("2026-11-24T06:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  private final SteppedClock clock = new SteppedClock();
  private final Logger logger = (Logger) LoggerFactory.getLogger("summary-test");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final RateLimitedSummary summary =
      new RateLimitedSummary(
          logger, "Partial syncs", Map.of("family", "IPv4"), "syncs", Duration.ofMinutes(1), clock);

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
  }

  private static Map<String, Object> fields(ILoggingEvent line) {
    var fields = new LinkedHashMap<String, Object>();
    line.getKeyValuePairs().forEach(pair -> fields.put(pair.key, pair.value));
    return fields;
  }

  private void sync(int changed, long millis) {
    summary.event().sum("changedServices", changed).max("longestMs", millis).record();
  }

  @Test
  void theFirstEventIsLoggedAtOnce() {
    sync(2, 15);

    assertThat(lines.list)
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line.getFormattedMessage()).isEqualTo("Partial syncs");
              assertThat(fields(line))
                  .containsExactly(
                      Map.entry("family", "IPv4"),
                      Map.entry("syncs", 1L),
                      Map.entry("changedServices", 2L),
                      Map.entry("longestMs", 15L),
                      Map.entry("since", clock.now));
            });
  }

  @Test
  void eventsWithinTheIntervalAddUpIntoOneLineWhenItHasPassed() {
    sync(1, 5);
    clock.now = clock.now.plusSeconds(10);
    sync(3, 40);
    clock.now = clock.now.plusSeconds(10);
    sync(1, 7);
    summary.flushIfDue();
    assertThat(lines.list).hasSize(1);

    clock.now = clock.now.plusSeconds(40);
    summary.flushIfDue();

    assertThat(lines.list).hasSize(2);
    assertThat(fields(lines.list.get(1)))
        .containsEntry("syncs", 2L)
        .containsEntry("changedServices", 4L)
        .containsEntry("longestMs", 40L)
        .containsEntry("since", Instant.parse("2026-11-24T06:00:10Z"));
  }

  @Test
  void aBusyMinuteIsOneLineHoweverManyEvents() {
    for (int second = 0; second < 120; second++) {
      sync(1, 1);
      clock.now = clock.now.plusSeconds(1);
    }

    // The first at once, then one per minute.
    assertThat(lines.list).hasSize(2);
    assertThat(lines.list).extracting(line -> fields(line).get("syncs")).containsExactly(1L, 60L);
  }

  @Test
  void nothingIsLoggedWhenNothingHappened() {
    clock.now = clock.now.plusSeconds(600);
    summary.flushIfDue();

    assertThat(lines.list).isEmpty();
  }
}
