package dev.proxima.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.List;

/**
 * The binaries' logging until {@code --log-format} says otherwise: one readable line per event on
 * stderr, at the level {@code PROXIMA_LOG_LEVEL} sets (default INFO), with the client libraries'
 * chatter (fabric8, OkHttp, Vert.x, Netty) at WARN.
 *
 * <p>Set up in code rather than by a logback.xml: logback finds this class as a service before it
 * looks for a file, and reading the XML took the start its XML parser and configuration framework,
 * about 40 ms of single-threaded work before a binary's first request. A {@code
 * -Dlogback.configurationFile} given to the JVM still wins.
 */
public final class TextLogging extends ContextAwareBase implements Configurator {
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} %msg %kvp{NONE}%n%ex";
  private static final List<String> QUIET =
      List.of("io.fabric8", "okhttp3", "io.vertx", "io.netty");

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    var encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    var appender = new ConsoleAppender<ILoggingEvent>();
    appender.setContext(context);
    appender.setName("text");
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();
    QUIET.forEach(name -> context.getLogger(name).setLevel(Level.WARN));
    var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(rootLevel());
    root.addAppender(appender);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /**
   * PROXIMA_LOG_LEVEL as a system property or environment variable, INFO if neither is set; like
   * logback's own configuration, a value it does not know (or a blank one) means DEBUG.
   */
  static Level rootLevel() {
    var value = System.getProperty("PROXIMA_LOG_LEVEL", System.getenv("PROXIMA_LOG_LEVEL"));
    return value == null ? Level.INFO : Level.toLevel(value.trim(), Level.DEBUG);
  }
}
