package dev.proxima.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import net.logstash.logback.decorate.JsonFactoryDecorator;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.LoggerFactory;

/**
 * Log output: a readable line with key=value pairs, or one JSON object per line for collectors with
 * every key-value pair as a top-level field ({@code {"@timestamp":...,"level":"INFO",
 * "message":"Synced proxy rules","family":"IPv4",...}}).
 */
public enum LogFormat {
  text,
  json;

  /** Keeps one-shot commands' stderr for what matters; their result goes to stdout. */
  public static void warningsOnly() {
    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.WARN);
  }

  /**
   * Durations and instants as the text format shows them ({@code PT1.5S}, {@code
   * 2026-11-24T06:00:00Z}) instead of Jackson's bare seconds, which read as plain numbers.
   */
  private static final class ReadableTimes implements JsonFactoryDecorator {
    @Override
    public JsonFactory decorate(JsonFactory factory) {
      if (factory.getCodec() instanceof ObjectMapper mapper) {
        mapper.disable(
            SerializationFeature.WRITE_DATES_AS_TIMESTAMPS,
            SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS);
      }
      return factory;
    }
  }

  /** Switches the root logger to this format; text is what {@link TextLogging} already sets up. */
  public void apply() {
    if (this == text) {
      return;
    }
    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    var encoder = new LogstashEncoder();
    encoder.setContext(context);
    // The pod and node are the collector's to add; the context would only repeat the hostname.
    encoder.setIncludeContext(false);
    encoder.setJsonFactoryDecorator(new ReadableTimes());
    encoder.start();
    var appender = new ConsoleAppender<ILoggingEvent>();
    appender.setContext(context);
    appender.setName("json");
    appender.setEncoder(encoder);
    appender.start();
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
  }
}
