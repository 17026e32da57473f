package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyModeTest {
  private static Map<String, String> annotations(String hints, String mode) {
    var map = new HashMap<String, String>();
    if (hints != null) {
      map.put(Annotations.TOPOLOGY_AWARE_HINTS, hints);
    }
    if (mode != null) {
      map.put(Annotations.TOPOLOGY_MODE, mode);
    }
    return map;
  }

  @Test
  void onlyAutoInEitherCaseEnablesTheHeuristic() {
    assertThat(TopologyMode.autoEnabled(annotations(null, "Auto"))).isTrue();
    assertThat(TopologyMode.autoEnabled(annotations(null, "auto"))).isTrue();
    assertThat(TopologyMode.autoEnabled(annotations(null, "AUTO"))).isFalse();
    assertThat(TopologyMode.autoEnabled(annotations(null, "PreferZone"))).isFalse();
    assertThat(TopologyMode.autoEnabled(annotations(null, null))).isFalse();
    assertThat(TopologyMode.autoEnabled(null)).isFalse();
  }

  @Test
  void theDeprecatedKeyDecidesAloneWheneverItIsPresent() {
    assertThat(TopologyMode.autoEnabled(annotations("Auto", null))).isTrue();
    assertThat(TopologyMode.autoEnabled(annotations("", "Auto"))).isFalse();
    assertThat(TopologyMode.autoEnabled(annotations("Disabled", "Auto"))).isFalse();
    assertThat(TopologyMode.autoEnabled(annotations("auto", "Disabled"))).isTrue();
  }
}
