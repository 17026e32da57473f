package dev.proxima.proxy.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What one logger and those below it log during each test, for {@code @RegisterExtension}: the
 * events, and each as the text format prints it (the message, then its key-value pairs).
 */
public final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {
  private final String loggerName;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  /** Captures logger {@code loggerName}, a package or a class name. */
  public CapturedLogs(String loggerName) {
    this.loggerName = loggerName;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    appender.list.clear();
    appender.start();
    logger().addAppender(appender);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger().detachAppender(appender);
  }

  private Logger logger() {
    return (Logger) LoggerFactory.getLogger(loggerName);
  }

  /** The events logged so far in this test. */
  public List<ILoggingEvent> events() {
    return appender.list;
  }

  /** Forgets what was logged so far. */
  public void clear() {
    appender.list.clear();
  }

  /** Each line logged so far: its message, then ` key=value` for each pair. */
  public List<String> lines() {
    return appender.list.stream()
        .map(
            event ->
                event.getFormattedMessage()
                    + (event.getKeyValuePairs() == null
                        ? ""
                        : event.getKeyValuePairs().stream()
                            .map(pair -> " " + pair.key + "=" + pair.value)
                            .reduce("", String::concat)))
        .toList();
  }
}
