package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ZoneSpillOverSetting.State;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ZoneSpillOverSettingTest {
  @ParameterizedTest(name = "{0} / {1} -> {2} {3}")
  @CsvSource(
      nullValues = "<none>",
      value = {
        "<none>, <none>, OFF, 1.25",
        "false, 2, OFF, 1.25",
        "true, <none>, ON, 1.25",
        "true, 1.5, ON, 1.5",
        "true, 1, ON, 1.0",
        "true, 10, ON, 10.0",
        "'True', <none>, INVALID, 1.25",
        "yes, <none>, INVALID, 1.25",
        "true, 0.9, INVALID, 1.25",
        "true, 10.5, INVALID, 1.25",
        "true, 1.25x, INVALID, 1.25",
        "true, NaN, INVALID, 1.25",
        "true, 1e400, INVALID, 1.25",
        "true, '', INVALID, 1.25",
        "true, 1.00000000000000001, INVALID, 1.25",
      })
  void onlyTrueWithASensibleToleranceTurnsItOn(
      String enabled, String tolerance, State state, double expectedTolerance) {
    var annotations = new HashMap<String, String>();
    if (enabled != null) {
      annotations.put(Annotations.ZONE_SPILL_OVER, enabled);
    }
    if (tolerance != null) {
      annotations.put(Annotations.ZONE_SPILL_OVER_TOLERANCE, tolerance);
    }

    var setting = ZoneSpillOverSetting.parse(annotations);

    assertThat(setting.state()).isEqualTo(state);
    assertThat(setting.tolerance()).isEqualTo(expectedTolerance);
    if (state == State.INVALID) {
      assertThat(setting.problem()).contains("proxima.dev/zone-spill-over").contains("is off");
    } else {
      assertThat(setting.problem()).isEmpty();
    }
  }

  @org.junit.jupiter.api.Test
  void aLongValueIsShortenedInTheProblem() {
    var setting =
        ZoneSpillOverSetting.parse(
            Map.of(
                Annotations.ZONE_SPILL_OVER,
                "true",
                Annotations.ZONE_SPILL_OVER_TOLERANCE,
                "1".repeat(10_000)));

    assertThat(setting.state()).isEqualTo(State.INVALID);
    assertThat(setting.problem()).hasSizeLessThan(200);
  }
}
