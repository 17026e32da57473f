package dev.proxima.controller.hints.auto;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class OverloadTest {
  private static final ZoneCpuRatios EVEN = ZoneCpuRatios.of(Map.of("zone-a", 0.5, "zone-b", 0.5));

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "nothing allocated is never overloaded", ZoneCpuRatios.insufficient(), Map.of(), false),
        Arguments.of(
            "insufficient ratios overload every allocated service",
            ZoneCpuRatios.insufficient(),
            Map.of("zone-a", 5, "zone-b", 5),
            true),
        Arguments.of(
            "empty ratios overload every allocated service",
            ZoneCpuRatios.of(Map.of()),
            Map.of("zone-a", 5, "zone-b", 5),
            true),
        Arguments.of(
            "a zone with CPU but no allocation is overloaded",
            ZoneCpuRatios.of(Map.of("zone-a", 0.4, "zone-b", 0.4, "zone-c", 0.2)),
            Map.of("zone-a", 5, "zone-b", 5),
            true),
        Arguments.of(
            "every zone at its minimum is fine: ceil(10 * 0.5 / 1.2) = 5",
            EVEN,
            Map.of("zone-a", 5, "zone-b", 5),
            false),
        Arguments.of(
            "one zone below its minimum is overloaded",
            EVEN,
            Map.of("zone-a", 6, "zone-b", 4),
            true),
        Arguments.of(
            "zones allocated but no longer in the ratios are ignored",
            EVEN,
            Map.of("zone-a", 5, "zone-b", 5, "zone-gone", 1),
            false),
        Arguments.of(
            "the minimum uses the same double arithmetic as the allocation",
            ZoneCpuRatios.of(Map.of("zone-a", 0.4, "zone-b", 0.6)),
            Map.of("zone-a", 1, "zone-b", 2),
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decidesOverloadLikeUpstream(
      String name, ZoneCpuRatios ratios, Map<String, Integer> allocated, boolean expected) {
    assertThat(Overload.serviceOverloaded(ratios, allocated)).isEqualTo(expected);
  }
}
