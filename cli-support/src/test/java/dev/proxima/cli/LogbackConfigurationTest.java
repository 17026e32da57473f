package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/** What logback.xml on the binaries' class path sets up. */
class LogbackConfigurationTest {
  private static LoggerContext configuredAfresh() throws Exception {
    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
    return context;
  }

  @AfterEach
  void restore() throws Exception {
    System.clearProperty("PROXIMA_LOG_LEVEL");
    System.clearProperty(LogFormat.LEVEL_PROPERTY);
    System.clearProperty(LogFormat.FORMAT_PROPERTY);
    configuredAfresh();
  }

  @Test
  void byDefaultEachEventIsAReadableLineOnStderrWithKeyValuePairsAtTheEnd() throws Exception {
    var original = System.err;
    var captured = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      configuredAfresh();
      LoggerFactory.getLogger("dev.proxima.Test")
          .atInfo()
          .addKeyValue("service", "shop/web")
          .addKeyValue("slices", 3)
          .log("Updated");
      LoggerFactory.getLogger("dev.proxima.Test").atDebug().log("Not shown at INFO");
    } finally {
      System.setErr(original);
    }

    assertThat(captured.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  Test Updated service=shop/web slices=3");
  }

  @Test
  void theClientLibrariesLogOnlyWarningsAndErrors() throws Exception {
    var context = configuredAfresh();

    assertThat(context.getLogger("io.fabric8.kubernetes.client.Config").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.netty.util.ResourceLeakDetector").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.vertx.core.impl.VertxImpl").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("okhttp3.OkHttpClient").getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  /**
   * logback prints its whole status list, in lines that are not JSON, as soon as a configuration
   * has a warning (an appender defined and not used, say).
   */
  @ParameterizedTest
  @EnumSource(LogFormat.class)
  void eachFormatConfiguresWithoutAWarningLogbackWouldPrint(LogFormat format) throws Exception {
    var since = System.currentTimeMillis();
    var context = configuredAfresh();
    format.apply();
    LogFormat.text.apply();
    format.apply();

    assertThat(new StatusUtil(context).getHighestLevel(since)).isLessThan(Status.WARN);
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("console"))
        .isNotNull();
  }

  @Test
  void fabric8sReflectorRepeatsNoFailedListWithItsStackTrace() throws Exception {
    var context = configuredAfresh();

    assertThat(
            context
                .getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector")
                .getEffectiveLevel())
        .isEqualTo(Level.ERROR);
  }

  @Test
  void warningsOnlyRaisesTheRootLevelAndKeepsTheFormat() throws Exception {
    LogFormat.warningsOnly();

    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("console"))
        .isNotNull();
  }

  @Test
  void proximaLogLevelSetsTheRootLevelAndAnUnknownOneMeansDebugAsInLogbacksOwnFiles()
      throws Exception {
    System.setProperty("PROXIMA_LOG_LEVEL", "warn");
    assertThat(configuredAfresh().getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel())
        .isEqualTo(Level.WARN);

    System.setProperty("PROXIMA_LOG_LEVEL", "loud");
    assertThat(configuredAfresh().getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel())
        .isEqualTo(Level.DEBUG);
  }
}
