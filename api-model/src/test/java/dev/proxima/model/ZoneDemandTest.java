package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ZoneDemandTest {
  @Test
  void sharesArePublishedWithThreeDecimalsAndReadBackAsWritten() {
    var demand = ZoneDemand.ofRatios(Map.of("zone-a", 1 / 3.0, "zone-b", 2 / 3.0));

    assertThat(demand.data())
        .containsExactly(Map.entry("zone-a", "0.333"), Map.entry("zone-b", "0.667"));
    var read = ZoneDemand.parse(demand.data());
    assertThat(read.problems()).isEmpty();
    assertThat(read.demand()).isEqualTo(demand);
  }

  @Test
  void aChangeBelowAThousandthIsNoChange() {
    var before = ZoneDemand.ofRatios(Map.of("a", 0.5, "b", 0.5));
    var after = ZoneDemand.ofRatios(Map.of("a", 0.5002, "b", 0.4998));

    assertThat(after).isEqualTo(before);
  }

  @Test
  void oneZoneTooManyZonesOrAZoneNoLabelCouldHoldIsUnknown() {
    assertThat(ZoneDemand.ofRatios(Map.of("a", 1.0)).isKnown()).isFalse();
    var many = new TreeMap<String, Double>();
    for (int i = 0; i <= ZoneDemand.MAX_ZONES; i++) {
      many.put("z" + i, 1.0 / (ZoneDemand.MAX_ZONES + 1));
    }
    assertThat(ZoneDemand.ofRatios(many).isKnown()).isFalse();
    assertThat(ZoneDemand.ofRatios(Map.of("a b", 0.5, "c", 0.5)).isKnown()).isFalse();
  }

  @Test
  void anEmptyOrMissingObjectIsUnknownWithoutComplaint() {
    assertThat(ZoneDemand.parse(null).demand().isKnown()).isFalse();
    assertThat(ZoneDemand.parse(Map.of()).problems()).isEmpty();
  }

  @Test
  void dataNotWrittenByTheControllerIsRefusedWithAReason() {
    assertRefused(Map.of("a", "0.5", "b", "lots"), "zone b");
    assertRefused(Map.of("a", "0.5", "b", "-0.5"), "zone b");
    assertRefused(Map.of("a", "0.5", "b", "0.1"), "sum to");
    assertRefused(Map.of("a", "1.000"), "fewer than two zones");
    var withBadKey = new HashMap<String, String>();
    withBadKey.put("-a", "0.5");
    withBadKey.put("b", "0.5");
    assertRefused(withBadKey, "not a zone name");
  }

  private static void assertRefused(Map<String, String> data, String reason) {
    var parsed = ZoneDemand.parse(data);
    assertThat(parsed.demand().isKnown()).isFalse();
    assertThat(parsed.problems())
        .singleElement()
        .asString()
        .contains(reason)
        .contains("proxima-zone-demand");
  }
}
