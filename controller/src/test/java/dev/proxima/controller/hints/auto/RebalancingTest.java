package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.hinted;
import static dev.proxima.controller.hints.auto.AutoFixtures.hintsOf;
import static dev.proxima.controller.hints.auto.AutoFixtures.ready;
import static dev.proxima.controller.hints.auto.AutoFixtures.slice;
import static dev.proxima.controller.hints.auto.AutoFixtures.unready;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RebalancingTest {

  private static Map<String, Allocation> desired(Map<String, Double> desiredByZone) {
    return desiredByZone.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> new Allocation(0, 0, e.getValue())));
  }

  /** Upstream's Test_getGivingAndReceivingZones. */
  static Stream<Arguments> upstreamGivingAndReceivingCases() {
    var equalFives = Map.of("zone-a", 5.0, "zone-b", 5.0, "zone-c", 5.0);
    return Stream.of(
        Arguments.of("empty", Map.of(), Map.of(), Map.of(), Map.of()),
        Arguments.of(
            "simple allocation with no need for rebalancing",
            Map.of("zone-a", 1.2, "zone-b", 1.1, "zone-c", 1.0),
            Map.of("zone-a", 1, "zone-b", 1, "zone-c", 1),
            Map.of(),
            Map.of()),
        Arguments.of(
            "preference for same zone even when giving an extra endpoint would result in slightly"
                + " better distribution",
            Map.of("zone-a", 5.1, "zone-b", 5.1, "zone-c", 5.8),
            Map.of("zone-a", 16),
            Map.of("zone-a", 10),
            Map.of("zone-b", 5, "zone-c", 5)),
        Arguments.of(
            "when 2 zones need < 1 endpoint, give to zone that needs endpoint most",
            Map.of("zone-a", 5.0, "zone-b", 5.6, "zone-c", 5.4),
            Map.of("zone-a", 16),
            Map.of("zone-a", 11),
            Map.of("zone-b", 6, "zone-c", 5)),
        Arguments.of(
            "when 2 zones have extra endpoints, give from zone with most extra",
            Map.of("zone-a", 5.0, "zone-b", 5.6, "zone-c", 5.4),
            Map.of("zone-b", 8, "zone-c", 8),
            Map.of("zone-b", 2, "zone-c", 3),
            Map.of("zone-a", 5)),
        Arguments.of(
            "ensure function can handle unexpected data (more allocated than allocations)",
            equalFives,
            Map.of("zone-a", 6, "zone-b", 6, "zone-c", 6),
            Map.of(),
            Map.of()),
        Arguments.of(
            "ensure function can handle unexpected data (negative allocations)",
            Map.of("zone-a", -5.0, "zone-b", -5.0, "zone-c", -5.0),
            Map.of("zone-a", 6, "zone-b", 6, "zone-c", 6),
            Map.of(),
            Map.of()),
        Arguments.of(
            "ensure function can handle unexpected data (negative allocated)",
            equalFives,
            Map.of("zone-a", -4, "zone-b", -3, "zone-c", -2),
            Map.of(),
            Map.of()),
        Arguments.of(
            "ensure function can handle unexpected data (negative for 1 zone)",
            equalFives,
            Map.of("zone-a", -40, "zone-b", 20, "zone-c", 20),
            Map.of("zone-b", 15, "zone-c", 15),
            Map.of("zone-a", 30)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamGivingAndReceivingCases")
  void decidesWhichZonesGiveAndReceiveLikeUpstream(
      String name,
      Map<String, Double> desiredByZone,
      Map<String, Integer> allocatedByZone,
      Map<String, Integer> expectedGiving,
      Map<String, Integer> expectedReceiving) {
    var transfers = Rebalancing.givingAndReceivingZones(desired(desiredByZone), allocatedByZone);

    assertThat(transfers.giving()).isEqualTo(expectedGiving);
    assertThat(transfers.receiving()).isEqualTo(expectedReceiving);
  }

  @Test
  void aTieForMostToReceiveGoesToTheZoneWhoseNameSortsFirst() {
    var transfers =
        Rebalancing.givingAndReceivingZones(
            desired(Map.of("zone-a", 2.0, "zone-c", 1.6, "zone-b", 1.6)),
            Map.of("zone-a", 3, "zone-b", 1, "zone-c", 1));

    // a has exactly one endpoint to spare; b and c each need 0.6 and tie.
    assertThat(transfers.giving()).isEqualTo(Map.of("zone-a", 1));
    assertThat(transfers.receiving()).isEqualTo(Map.of("zone-b", 1));
  }

  @Test
  void aTieForMostToGiveGoesToTheZoneWhoseNameSortsFirst() {
    var transfers =
        Rebalancing.givingAndReceivingZones(
            desired(Map.of("zone-b", 2.5, "zone-a", 2.5, "zone-c", 3.0)),
            Map.of("zone-a", 3, "zone-b", 3, "zone-c", 2));

    // a and b each have 0.5 spare and c needs 1.0: one endpoint moves, from zone-a.
    assertThat(transfers.giving()).isEqualTo(Map.of("zone-a", 1));
    assertThat(transfers.receiving()).isEqualTo(Map.of("zone-c", 1));
  }

  /** Upstream's Test_redistributeHints, which asserts the per-zone changes only. */
  static Stream<Arguments> upstreamRedistributeCases() {
    return Stream.of(
        Arguments.of("empty", List.of(), Map.of(), Map.of(), Map.of()),
        Arguments.of(
            "single endpoint",
            List.of(slice("s1", hinted(ready("10.0.0.1", "zone-a"), "zone-a"))),
            Map.of("zone-a", 1),
            Map.of("zone-b", 1),
            Map.of("zone-a", -1, "zone-b", 1)),
        Arguments.of(
            "endpoints from 1 zone redistributed to 2 other zones",
            List.of(
                slice(
                    "s1",
                    hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
                    hinted(ready("10.0.0.2", "zone-a"), "zone-a"),
                    hinted(ready("10.0.0.3", "zone-a"), "zone-a"))),
            Map.of("zone-a", 2),
            Map.of("zone-b", 1, "zone-c", 1),
            Map.of("zone-a", -2, "zone-b", 1, "zone-c", 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamRedistributeCases")
  void redistributionChangesPerZoneCountsLikeUpstream(
      String name,
      List<EndpointSlice> slices,
      Map<String, Integer> giving,
      Map<String, Integer> receiving,
      Map<String, Integer> expectedDeltas) {
    var deltas = Rebalancing.redistribute(slices, new Rebalancing.Transfers(giving, receiving));

    assertThat(deltas).isEqualTo(expectedDeltas);
  }

  @Test
  void redistributionReHintsEndpointsInOrderToReceiversInNameOrder() {
    var slices =
        List.of(
            slice(
                "s1",
                hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
                hinted(ready("10.0.0.2", "zone-a"), "zone-a"),
                hinted(ready("10.0.0.3", "zone-a"), "zone-a")));

    Rebalancing.redistribute(
        slices, new Rebalancing.Transfers(Map.of("zone-a", 2), Map.of("zone-c", 1, "zone-b", 1)));

    assertThat(hintsOf(slices.get(0)))
        .containsExactly("10.0.0.1:zone-b", "10.0.0.2:zone-c", "10.0.0.3:zone-a");
  }

  @Test
  void redistributionSkipsUnreadyEndpointsAndEndpointsWithoutZone() {
    var slices =
        List.of(
            slice(
                "s1",
                hinted(unready("10.0.0.1", "zone-a"), "zone-a"),
                ready("10.0.0.2", null),
                hinted(ready("10.0.0.3", "zone-b"), "zone-b"),
                hinted(ready("10.0.0.4", "zone-a"), "zone-a")));

    var deltas =
        Rebalancing.redistribute(
            slices, new Rebalancing.Transfers(Map.of("zone-a", 1), Map.of("zone-c", 1)));

    assertThat(deltas).isEqualTo(Map.of("zone-a", -1, "zone-c", 1));
    assertThat(hintsOf(slices.get(0)))
        .containsExactly("10.0.0.1:zone-a", "10.0.0.2:-", "10.0.0.3:zone-b", "10.0.0.4:zone-c");
  }

  @Test
  void redistributionDoesNotConsumeTheCallersTransfers() {
    var transfers = new Rebalancing.Transfers(Map.of("zone-a", 1), Map.of("zone-b", 1));

    Rebalancing.redistribute(
        List.of(slice("s1", hinted(ready("10.0.0.1", "zone-a"), "zone-a"))), transfers);

    assertThat(transfers.giving()).isEqualTo(Map.of("zone-a", 1));
    assertThat(transfers.receiving()).isEqualTo(Map.of("zone-b", 1));
  }
}
