package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.readyNode;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AllocationsTest {

  @Test
  void theMinimumFactorIsOneOverOnePointTwoAsADouble() {
    assertThat(Allocations.MINIMUM_FACTOR).isEqualTo(0.8333333333333334);
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            "insufficient node information",
            ZoneCpuRatios.insufficient(),
            10,
            AutoHintEvents.INSUFFICIENT_NODE_INFO),
        Arguments.of(
            "ratios for one zone only",
            ZoneCpuRatios.of(Map.of("zone-a", 1.0)),
            10,
            AutoHintEvents.NODES_READY_IN_ONE_ZONE_ONLY),
        Arguments.of(
            "empty ratios, as before the first SetNodes",
            ZoneCpuRatios.of(Map.of()),
            10,
            "Nodes only ready in one zone"),
        Arguments.of(
            "fewer ready endpoints than zones",
            ZoneCpuRatios.of(Map.of("zone-a", 0.3, "zone-b", 0.4, "zone-c", 0.3)),
            2,
            "Insufficient number of endpoints (2 endpoints, 3 zones)"),
        Arguments.of(
            "no ready endpoints at all, as for a placeholder slice",
            ZoneCpuRatios.of(Map.of("zone-a", 0.5, "zone-b", 0.5)),
            0,
            "Insufficient number of endpoints (0 endpoints, 2 zones)"),
        Arguments.of(
            "float precision: 0.4 * 3 is 1.2000000000000002, so both minimums are 2",
            ZoneCpuRatios.of(Map.of("zone-a", 0.4, "zone-b", 0.6)),
            3,
            "Unable to allocate minimum required endpoints to each zone without exceeding"
                + " overload threshold (3 endpoints, 2 zones)"),
        Arguments.of(
            "issue 122437: three equal zones and 11 endpoints need minimums 4+4+4",
            ZoneCpuRatios.fromNodes(
                List.of(
                    readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("zone-c", "4"))),
            11,
            "Unable to allocate minimum required endpoints to each zone without exceeding"
                + " overload threshold (11 endpoints, 3 zones)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void refusesWithUpstreamsMessage(
      String name, ZoneCpuRatios ratios, int readyEndpoints, String expectedMessage) {
    var allocations = Allocations.compute(ratios, readyEndpoints);

    assertThat(allocations.refused()).isTrue();
    assertThat(allocations.refusal()).contains(expectedMessage);
    assertThat(allocations.byZone()).isEmpty();
  }

  @Test
  void floatPrecisionMattersExactArithmeticWouldHaveAllowedIt() {
    var exactMinimumOfZoneA =
        new BigDecimal("0.4")
            .multiply(BigDecimal.valueOf(3))
            .multiply(BigDecimal.valueOf(5))
            .divide(BigDecimal.valueOf(6), MathContext.DECIMAL128)
            .setScale(0, RoundingMode.CEILING);

    assertThat(exactMinimumOfZoneA).isEqualByComparingTo("1");
    assertThat(0.4 * 3).isEqualTo(1.2000000000000002);
    assertThat(Math.ceil(0.4 * 3 * Allocations.MINIMUM_FACTOR)).isEqualTo(2.0);
  }

  @Test
  void threeEqualZonesAllowTwelveEndpoints() {
    var ratios =
        ZoneCpuRatios.fromNodes(
            List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("zone-c", "4")));

    var allocations = Allocations.compute(ratios, 12);

    assertThat(allocations.refused()).isFalse();
    assertThat(allocations.byZone().get("zone-a").minimum()).isEqualTo(4);
    assertThat(allocations.byZone().get("zone-a").maximum()).isEqualTo(4);
  }

  @Test
  void allocatesMinimumMaximumAndDesiredPerZoneForTheWorkedExample() {
    var allocations =
        Allocations.compute(
            ZoneCpuRatios.of(Map.of("zone-a", 0.35, "zone-b", 0.35, "zone-c", 0.30)), 10);

    assertThat(allocations.refusal()).isEmpty();
    assertThat(allocations.byZone())
        .containsExactly(
            Map.entry("zone-a", new Allocation(3, 4, 0.35 * 10)),
            Map.entry("zone-b", new Allocation(3, 4, 0.35 * 10)),
            Map.entry("zone-c", new Allocation(3, 4, 0.30 * 10)));
  }

  @Test
  void desiredIsRaisedToTheMinimum() {
    var allocations =
        Allocations.compute(ZoneCpuRatios.of(Map.of("zone-a", 0.9, "zone-b", 0.1)), 10);

    assertThat(allocations.byZone().get("zone-b")).isEqualTo(new Allocation(1, 2, 1.0));
    assertThat(allocations.byZone().get("zone-a")).isEqualTo(new Allocation(8, 9, 9.0));
  }

  @Test
  void theMaximumIsTheMinimumPlusWhatTheMinimumsLeaveOver() {
    var allocations =
        Allocations.compute(ZoneCpuRatios.of(Map.of("zone-a", 0.5, "zone-b", 0.5)), 20);

    // desired 10, minimum ceil(8.333) = 9 each, 2 left over
    assertThat(allocations.byZone().get("zone-a")).isEqualTo(new Allocation(9, 11, 10.0));
    assertThat(allocations.byZone().get("zone-b")).isEqualTo(new Allocation(9, 11, 10.0));
  }
}
