package dev.proxima.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.joran.spi.JoranException;
import org.slf4j.LoggerFactory;

/**
 * Log output: a readable line with key=value pairs, or one JSON object per line for collectors with
 * every key-value pair as a top-level field ({@code {"@timestamp":...,"level":"INFO",
 * "message":"Synced proxy rules","family":"IPv4",...}}). Both are defined in {@code logback.xml};
 * choosing one sets the system property that file reads and has logback read it again.
 */
public enum LogFormat {
  text,
  json;

  /** The system property logback.xml picks its appender by. */
  static final String FORMAT_PROPERTY = "proxima.logFormat";

  /** The system property logback.xml takes the root level from before PROXIMA_LOG_LEVEL. */
  static final String LEVEL_PROPERTY = "proxima.logLevel";

  /** Keeps one-shot commands' stderr for what matters; their result goes to stdout. */
  public static void warningsOnly() {
    configure(LEVEL_PROPERTY, null, "WARN");
  }

  /** Switches logging to this format, from the next event on. */
  public void apply() {
    configure(FORMAT_PROPERTY, text.name(), name());
  }

  /**
   * Sets {@code property} and has logback read its configuration again; nothing to do when the
   * property already has that value (or is unset and that value is the file's default).
   */
  private static void configure(String property, String fileDefault, String value) {
    if (value.equals(System.getProperty(property, fileDefault))) {
      return;
    }
    System.setProperty(property, value);
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.reset();
      try {
        new ContextInitializer(context).autoConfig();
      } catch (JoranException invalid) {
        // logback has reported what it could not read to its status listeners.
        throw new IllegalStateException("logback's configuration is invalid", invalid);
      }
    }
  }
}
