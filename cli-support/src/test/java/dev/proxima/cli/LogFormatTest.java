package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogFormatTest {
  private static void resetLogging() throws Exception {
    System.clearProperty(LogFormat.LEVEL_PROPERTY);
    System.clearProperty(LogFormat.FORMAT_PROPERTY);
    var context = (ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ch.qos.logback.classic.util.ContextInitializer(context).autoConfig();
  }

  @Test
  void jsonWritesOneObjectPerLineWithEachKeyValuePairAsATopLevelField() throws Exception {
    var original = System.out;
    var captured = new ByteArrayOutputStream();
    // Other tests in this JVM may have raised the level (plan runs warnings-only); start clean.
    resetLogging();
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      LogFormat.json.apply();
      LoggerFactory.getLogger("test")
          .atInfo()
          .addKeyValue("service", "shop/web")
          .addKeyValue("slices", 3)
          .addKeyValue("elapsed", java.time.Duration.ofMillis(1500))
          .addKeyValue("at", java.time.Instant.parse("2026-11-24T06:00:00Z"))
          .addKeyValue("address", new java.net.InetSocketAddress("127.0.0.1", 8080))
          .log("Updated");
    } finally {
      System.setOut(original);
      resetLogging();
    }

    var line =
        captured
            .toString(StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.contains("Updated"))
            .findFirst()
            .orElseThrow();
    var json = new ObjectMapper().readTree(line);
    assertThat(json.get("level").asText()).isEqualTo("INFO");
    assertThat(json.get("message").asText()).isEqualTo("Updated");
    assertThat(json.get("service").asText()).isEqualTo("shop/web");
    assertThat(json.get("slices").asInt()).isEqualTo(3);
    assertThat(json.has("@timestamp")).isTrue();
    assertThat(json.get("logger_name").asText()).isEqualTo("test");
    assertThat(json.get("elapsed").asText()).isEqualTo("PT1.5S");
    assertThat(json.get("at").asText()).isEqualTo("2026-11-24T06:00:00Z");
    assertThat(json.get("address").asText()).isEqualTo("127.0.0.1:8080");
  }

  @Test
  void jsonWritesNothingToStderrAndTextGoesBackThere() throws Exception {
    var originalOut = System.out;
    var originalErr = System.err;
    var out = new ByteArrayOutputStream();
    var err = new ByteArrayOutputStream();
    resetLogging();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      LogFormat.json.apply();
      LoggerFactory.getLogger("test").atWarn().log("As JSON");
      LogFormat.text.apply();
      LoggerFactory.getLogger("test").atWarn().log("As text");
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
      resetLogging();
    }

    assertThat(out.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .satisfies(
            line ->
                assertThat(new ObjectMapper().readTree(line).get("message").asText())
                    .isEqualTo("As JSON"));
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .contains("WARN  test As text");
  }
}
