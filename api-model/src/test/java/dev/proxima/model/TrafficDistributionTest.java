package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrafficDistributionTest {
  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "PreferClose, PREFER_SAME_ZONE, true, false",
    "PreferSameZone, PREFER_SAME_ZONE, true, false",
    "PreferSameNode, PREFER_SAME_NODE, true, true",
    "preferclose, UNSUPPORTED, false, false",
    "PreferSameRack, UNSUPPORTED, false, false",
    "'', UNSUPPORTED, false, false",
  })
  void parsesEveryValueTheWayUpstreamDoes(
      String value, TrafficDistribution.Kind kind, boolean supported, boolean sameNode) {
    var parsed = TrafficDistribution.parse(value);

    assertThat(parsed.kind()).isEqualTo(kind);
    assertThat(parsed.isSupported()).isEqualTo(supported);
    assertThat(parsed.prefersSameNode()).isEqualTo(sameNode);
    assertThat(parsed.raw()).as("kept for reporting").isEqualTo(value);
  }

  @Test
  void anAbsentFieldIsAbsent() {
    var parsed = TrafficDistribution.parse(null);

    assertThat(parsed).isSameAs(TrafficDistribution.ABSENT);
    assertThat(parsed.isSupported()).isFalse();
    assertThat(parsed.raw()).isNull();
  }

  @Test
  void preferCloseIsTheDeprecatedAliasOfPreferSameZone() {
    assertThat(TrafficDistribution.parse("PreferClose").isDeprecatedAlias()).isTrue();
    assertThat(TrafficDistribution.parse("PreferSameZone").isDeprecatedAlias()).isFalse();
    assertThat(TrafficDistribution.parse("PreferClose"))
        .isNotEqualTo(TrafficDistribution.parse("PreferSameZone"));
  }
}
