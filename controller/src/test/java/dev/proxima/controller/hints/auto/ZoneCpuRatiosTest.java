package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.node;
import static dev.proxima.controller.hints.auto.AutoFixtures.readyNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ZoneCpuRatiosTest {

  /** Upstream's TestSetNodes; null expectations mean insufficient node information. */
  record Case(
      String name,
      List<Node> nodes,
      Map<String, Long> expectedMilliCpu,
      Map<String, Double> expectedRatios) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> upstreamSetNodesCases() {
    return Stream.of(
        new Case("empty", List.of(), null, null),
        new Case("single node", List.of(readyNode("zone-a", "1000m")), null, null),
        new Case(
            "single zone",
            List.of(readyNode("zone-a", "1000m"), readyNode("zone-a", "1000m")),
            null,
            null),
        new Case(
            "2 zones",
            List.of(readyNode("zone-a", "1000m"), readyNode("zone-b", "1000m")),
            Map.of("zone-a", 1000L, "zone-b", 1000L),
            Map.of("zone-a", 0.5, "zone-b", 0.5)),
        new Case(
            "2 zones, unready node in 1, ready node in 1",
            List.of(node("zone-a", "1000m", "False"), readyNode("zone-b", "1000m")),
            null,
            null),
        new Case(
            "2 zones, control plane node in 1, ready node in 1",
            List.of(
                readyNode("zone-a", "1000m"),
                node("zone-b", "1000m", "True", Labels.CONTROL_PLANE_ROLE)),
            null,
            null),
        new Case(
            "2 zones, unready node in 1, ready node in 2",
            List.of(
                readyNode("zone-a", "1000m"),
                readyNode("zone-b", "1000m"),
                node("zone-b", "1000m", "False")),
            Map.of("zone-a", 1000L, "zone-b", 1000L),
            Map.of("zone-a", 0.5, "zone-b", 0.5)),
        new Case(
            "2 zones, control plane node in 1, ready node in 2",
            List.of(
                readyNode("zone-a", "1000m"),
                readyNode("zone-b", "1000m"),
                node("zone-b", "1000m", "True", Labels.CONTROL_PLANE_ROLE)),
            Map.of("zone-a", 1000L, "zone-b", 1000L),
            Map.of("zone-a", 0.5, "zone-b", 0.5)),
        new Case(
            "3 zones, 4 nodes in 1, 2 nodes in 1, 1 node in 1",
            List.of(
                readyNode("zone-a", "1000m"),
                readyNode("zone-a", "1000m"),
                readyNode("zone-a", "1000m"),
                readyNode("zone-a", "2000m"),
                readyNode("zone-b", "3000m"),
                readyNode("zone-b", "1500m"),
                readyNode("zone-c", "500m")),
            Map.of("zone-a", 5000L, "zone-b", 4500L, "zone-c", 500L),
            Map.of("zone-a", 0.5, "zone-b", 0.45, "zone-c", 0.05)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamSetNodesCases")
  void computesZoneShareOfCpuLikeUpstreamSetNodes(Case testCase) {
    var ratios = ZoneCpuRatios.fromNodes(testCase.nodes());

    if (testCase.expectedRatios() == null) {
      assertThat(ratios.sufficientNodeInfo()).isFalse();
      assertThat(ratios.ratios()).isEmpty();
      assertThat(ratios.milliCpuByZone()).isEmpty();
      assertThat(ratios).isEqualTo(ZoneCpuRatios.insufficient());
    } else {
      assertThat(ratios.sufficientNodeInfo()).isTrue();
      assertThat(ratios.milliCpuByZone()).isEqualTo(testCase.expectedMilliCpu());
      assertThat(ratios.ratios()).isEqualTo(testCase.expectedRatios());
    }
  }

  static Stream<List<Node>> oneBadReadyWorkerNode() {
    return Stream.of(
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode(null, "4")),
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("", "4")),
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("zone-c", "0")),
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("zone-c", null)),
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode("zone-c", "0m")));
  }

  @ParameterizedTest
  @MethodSource("oneBadReadyWorkerNode")
  void oneReadyWorkerWithoutZoneOrCpuMakesTheWholeInformationInsufficient(List<Node> nodes) {
    assertThat(ZoneCpuRatios.fromNodes(nodes).sufficientNodeInfo()).isFalse();
  }

  @Test
  void nodesThatAreNotReadyAreSkippedBeforeTheirZoneAndCpuAreChecked() {
    var nodes =
        List.of(
            readyNode("zone-a", "2"),
            readyNode("zone-b", "2"),
            node(null, "0", "False"),
            node(null, null, "Unknown"),
            node(null, null, null));

    assertThat(ZoneCpuRatios.fromNodes(nodes).ratios())
        .isEqualTo(Map.of("zone-a", 0.5, "zone-b", 0.5));
  }

  @Test
  void aNodeWithoutReadyConditionCountsAsNotReady() {
    var nodes =
        List.of(readyNode("zone-a", "2"), readyNode("zone-b", "2"), node("zone-c", "2", null));

    assertThat(ZoneCpuRatios.fromNodes(nodes).ratios()).containsOnlyKeys("zone-a", "zone-b");
  }

  @Test
  void controlPlaneAndLegacyMasterNodesAreLeftOutEvenWithoutZone() {
    var nodes =
        List.of(
            readyNode("zone-a", "3"),
            readyNode("zone-b", "1"),
            node(null, "8", "True", Labels.CONTROL_PLANE_ROLE),
            node("zone-c", "8", "True", Labels.LEGACY_MASTER_ROLE));

    assertThat(ZoneCpuRatios.fromNodes(nodes).ratios())
        .isEqualTo(Map.of("zone-a", 0.75, "zone-b", 0.25));
  }

  @Test
  void allReadyWorkersInOneZoneAreInsufficientRatherThanOneZone() {
    var ratios =
        ZoneCpuRatios.fromNodes(List.of(readyNode("zone-a", "4"), node("zone-b", "4", "False")));

    assertThat(ratios.sufficientNodeInfo()).isFalse();
    assertThat(Allocations.compute(ratios, 10).refusal())
        .contains(AutoHintEvents.INSUFFICIENT_NODE_INFO);
  }

  @Test
  void ratiosAreMilliCpuDividedByTotalMilliCpuAsDoubles() {
    var ratios =
        ZoneCpuRatios.fromNodes(
            List.of(readyNode("zone-a", "1"), readyNode("zone-b", "1"), readyNode("zone-c", "1")));

    assertThat(ratios.ratios().get("zone-a"))
        .isEqualTo(1000.0 / 3000.0)
        .isEqualTo(0.3333333333333333);
  }

  @ParameterizedTest
  @CsvSource({
    "4, 4000",
    "3500m, 3500",
    "0.5, 500",
    ".5, 500",
    "1.5, 1500",
    "1e3, 1000000",
    "2k, 2000000",
    "2Ki, 2048000",
    "100n, 1",
    "1500u, 2",
    "0, 0"
  })
  void parsesCpuQuantitiesExactlyToMilliCpu(String quantity, long expectedMilli) {
    assertThat(CpuQuantity.milli(CpuQuantity.cores(new Quantity(quantity))))
        .isEqualTo(expectedMilli);
  }

  @Test
  void aMissingOrUnparseableCpuQuantityIsZero() {
    assertThat(CpuQuantity.cores(null)).isEqualByComparingTo(BigDecimal.ZERO);
    assertThat(CpuQuantity.cores(new Quantity("abc"))).isEqualByComparingTo(BigDecimal.ZERO);
  }

  @Test
  void mixedUnitsAddUpExactlyPerZone() {
    var ratios =
        ZoneCpuRatios.fromNodes(
            List.of(
                readyNode("zone-a", "1500m"),
                readyNode("zone-a", "0.5"),
                readyNode("zone-b", "2")));

    assertThat(ratios.milliCpuByZone()).isEqualTo(Map.of("zone-a", 2000L, "zone-b", 2000L));
    assertThat(ratios.ratios()).isEqualTo(Map.of("zone-a", 0.5, "zone-b", 0.5));
  }

  @Test
  void ratiosGivenDirectlyMayHoldFewerThanTwoZones() {
    var ratios = ZoneCpuRatios.of(Map.of("zone-a", 1.0));

    assertThat(ratios.sufficientNodeInfo()).isTrue();
    assertThat(ratios.ratios()).isEqualTo(Map.of("zone-a", 1.0));
    assertThat(ratios.milliCpuByZone()).isEmpty();
  }

  @Test
  void zonesAreKeptInNameOrder() {
    var ratios = ZoneCpuRatios.of(Map.of("zone-c", 0.2, "zone-a", 0.5, "zone-b", 0.3));

    assertThat(ratios.ratios().keySet()).containsExactly("zone-a", "zone-b", "zone-c");
  }
}
