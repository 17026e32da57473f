package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CreationTimestampTest {
  @Test
  void readsTheApiServersFormToTheSecond() {
    assertThat(CreationTimestamp.parse("2026-11-28T20:26:10Z"))
        .isEqualTo(Instant.ofEpochSecond(1_795_897_570L));
  }

  @ParameterizedTest(name = "[{index}] '{0}'")
  @ValueSource(
      strings = {
        "2026-11-28T20:26:10Z",
        "1970-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        "2024-02-29T12:00:00Z",
        "2023-02-29T12:00:00Z",
        "2000-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T23:60:00Z",
        "2026-12-31T23:59:60Z",
        "2026-11-28t20:26:10z",
        "2026-11-28T20:26:10.5Z",
        "2026-11-28T20:26:10.123456789Z",
        "2026-11-28T20:26:10+01:00",
        "2026-11-28 20:26:10Z",
        "2026-11-28T20:26:1aZ",
        "2026-11-2٨T20:26:10Z",
        "+2026-11-28T20:26:10Z",
        "-001-11-28T20:26:10Z",
        "2026-11-28",
        "",
        "yesterday",
      })
  void givesWhatInstantParseGivesForEveryForm(String text) {
    assertThat(CreationTimestamp.parse(text)).isEqualTo(instantParseOrNull(text));
  }

  @Test
  void givesWhatInstantParseGivesAcrossTheCalendar() {
    var random = new Random(20261128L);
    for (int i = 0; i < 20_000; i++) {
      long second = random.nextLong(-62_135_596_800L, 253_402_300_800L);
      var text = Instant.ofEpochSecond(second).toString();
      assertThat(CreationTimestamp.parse(text)).as(text).isEqualTo(Instant.ofEpochSecond(second));
    }
  }

  @Test
  void nothingIsNoInstant() {
    assertThat(CreationTimestamp.parse(null)).isNull();
  }

  private static Instant instantParseOrNull(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException unreadable) {
      return null;
    }
  }
}
