package dev.proxima.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.proxima.model.testing.MutableClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PassSummaryTest {
  private final MutableClock clock = new MutableClock();
  private final Logger logger = (Logger) LoggerFactory.getLogger(PassSummary.class);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final PassSummary passes = new PassSummary(clock);

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

  @Test
  void aPassIsOneLineWithItsServicesSlicesConflictsAndErrors() {
    // Three workers share a pass; slicesWritten is the reconciler's running total.
    passes.started(10);
    passes.started(10);
    passes.finished("success", false, 12);
    passes.started(12);
    passes.finished("stale", false, 12);
    clock.advance(Duration.ofMillis(250));
    passes.finished("error", false, 13);
    assertThat(lines.list).as("nothing while the queue is busy").isEmpty();
    passes.finished("success", true, 14);

    assertThat(lines.list)
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line.getFormattedMessage()).isEqualTo("Reconciled Services");
              assertThat(fields(line))
                  .containsEntry("passes", 1L)
                  .containsEntry("services", 4L)
                  .containsEntry("slicesUpdated", 4L)
                  .containsEntry("conflicts", 1L)
                  .containsEntry("errors", 1L)
                  .containsEntry("longestPassMs", 250L);
            });
  }

  @Test
  void passesWithinAMinuteOfTheLastLineAreSummedIntoTheNext() {
    passes.started(0);
    passes.finished("success", true, 1);
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(5));
      passes.started(i + 1);
      passes.finished("success", true, i + 2);
    }
    assertThat(lines.list).hasSize(1);

    clock.advance(Duration.ofSeconds(40));
    passes.flushIfDue();

    assertThat(lines.list).hasSize(2);
    assertThat(fields(lines.list.get(1)))
        .containsEntry("passes", 5L)
        .containsEntry("services", 5L)
        .containsEntry("slicesUpdated", 5L);
  }
}
