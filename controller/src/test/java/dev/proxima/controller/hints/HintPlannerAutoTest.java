package dev.proxima.controller.hints;

import static dev.proxima.controller.testing.Fixtures.node;
import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static dev.proxima.controller.testing.Fixtures.sliceOfType;
import static dev.proxima.controller.testing.Fixtures.withHints;
import static dev.proxima.controller.testing.Fixtures.zoneAndNodeHint;
import static dev.proxima.controller.testing.Fixtures.zoneHint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.auto.AutoHintCache;
import dev.proxima.model.Annotations;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How the planner hands Services to the Auto heuristic and takes them back. */
class HintPlannerAutoTest {
  private final AutoHintCache autoHints = new AutoHintCache();
  private final HintPlanner planner = new HintPlanner(autoHints);

  @BeforeEach
  void threeEqualZones() {
    autoHints.setNodes(
        List.of(node("a", "zone-a", "4"), node("b", "zone-b", "4"), node("c", "zone-c", "4")));
  }

  private static io.fabric8.kubernetes.api.model.Service auto(String trafficDistribution) {
    return service("svc", trafficDistribution, Map.of(Annotations.TOPOLOGY_MODE, "Auto"));
  }

  private static EndpointSlice balanced(String name) {
    return slice(
        name,
        "svc",
        ready("10.0.0.1", "zone-a", "a"),
        ready("10.0.0.2", "zone-b", "b"),
        ready("10.0.0.3", "zone-c", "c"));
  }

  private static List<String> zonesOf(EndpointSlice slice) {
    return slice.getEndpoints().stream()
        .map(Endpoint::getHints)
        .map(
            h ->
                h == null
                    ? "none"
                    : h.getForZones().get(0).getName()
                        + (h.getForNodes() == null || h.getForNodes().isEmpty() ? "" : "+node"))
        .toList();
  }

  @Test
  void autoWinsOverTheFieldAndAllocatesOwnZoneHintsWithAnEnabledEvent() {
    var plan = planner.plan(auto("PreferSameNode"), List.of(balanced("s1")));

    assertThat(plan.mode()).isEqualTo(HintMode.AUTO);
    assertThat(plan.modeLabel()).isEqualTo("Auto");
    assertThat(plan.updates())
        .singleElement()
        .satisfies(s -> assertThat(zonesOf(s)).containsExactly("zone-a", "zone-b", "zone-c"));
    assertThat(plan.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo("TopologyAwareHintsEnabled");
              assertThat(e.message())
                  .isEqualTo("Topology Aware Hints has been enabled, addressType: IPv4");
            });
  }

  @Test
  void allocatesEachAddressTypeSeparately() {
    var v6 = sliceOfType("s6", "svc", "IPv6", ready("fd00::1", "zone-a", "a"));

    var plan = planner.plan(auto(null), List.of(balanced("s4"), v6));

    assertThat(plan.updates())
        .as("the IPv6 slice had no hints to remove, so it is not written")
        .extracting(s -> s.getMetadata().getName())
        .containsExactly("s4");
    assertThat(plan.events())
        .extracting(PlannedEvent::message)
        .contains(
            "Topology Aware Hints has been enabled, addressType: IPv4",
            "Insufficient number of endpoints (1 endpoints, 3 zones), addressType: IPv6");
    assertThat(plan.removals()).isEmpty();
  }

  @Test
  void nodeHintsLeftFromPreferSameNodeDoNotSurviveAuto() {
    var hinted =
        slice(
            "s1",
            "svc",
            withHints(ready("10.0.0.1", "zone-a", "a"), zoneAndNodeHint("zone-a", "a")),
            withHints(ready("10.0.0.2", "zone-b", "b"), zoneAndNodeHint("zone-b", "b")),
            withHints(ready("10.0.0.3", "zone-c", "c"), zoneAndNodeHint("zone-c", "c")));

    var plan = planner.plan(auto(null), List.of(hinted));

    assertThat(plan.updates())
        .singleElement()
        .satisfies(s -> assertThat(zonesOf(s)).containsExactly("zone-a", "zone-b", "zone-c"));
  }

  @Test
  void validSameZoneHintsFromPreferSameZoneStayAsTheyAre() {
    var hinted =
        slice(
            "s1",
            "svc",
            withHints(ready("10.0.0.1", "zone-a", "a"), zoneHint("zone-a")),
            withHints(ready("10.0.0.2", "zone-b", "b"), zoneHint("zone-b")),
            withHints(ready("10.0.0.3", "zone-c", "c"), zoneHint("zone-c")));

    assertThat(planner.plan(auto(null), List.of(hinted)).updates()).isEmpty();
  }

  @Test
  void leavingAutoSaysSoOnceAndHandsTheServiceToTrafficDistribution() {
    var first = planner.plan(auto(null), List.of(balanced("s1")));
    var written = first.updates().get(0);

    var after = planner.plan(service("svc", "PreferSameNode"), List.of(written));
    var again = planner.plan(service("svc", "PreferSameNode"), List.of(after.updates().get(0)));

    assertThat(after.mode()).isEqualTo(HintMode.TRAFFIC_DISTRIBUTION);
    assertThat(after.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(PlannedEvent.Type.Warning);
              assertThat(e.reason()).isEqualTo("TopologyAwareHintsDisabled");
              assertThat(e.message())
                  .isEqualTo("Topology Aware Hints has been disabled, addressType: IPv4");
            });
    assertThat(zonesOf(after.updates().get(0)))
        .containsExactly("zone-a+node", "zone-b+node", "zone-c+node");
    assertThat(again.events()).isEmpty();
  }

  @Test
  void leavingAutoForNothingRemovesTheHintsAndNamesTheReason() {
    var written = planner.plan(auto(null), List.of(balanced("s1"))).updates().get(0);

    var after = planner.plan(service("svc", null), List.of(written));

    assertThat(zonesOf(after.updates().get(0))).containsOnly("none");
    assertThat(after.removals()).containsExactly(RemovalReasons.AUTO_DISABLED);
  }

  @Test
  void aSafeguardRemovesEveryHintAndNamesItsReason() {
    autoHints.setNodes(List.of(node("a", "zone-a", "4"), node("b", null, "4")));
    var hinted =
        slice(
            "s1",
            "svc",
            withHints(ready("10.0.0.1", "zone-a", "a"), zoneHint("zone-a")),
            withHints(ready("10.0.0.2", "zone-b", "b"), zoneHint("zone-b")));

    var plan = planner.plan(auto(null), List.of(hinted));

    assertThat(zonesOf(plan.updates().get(0))).containsOnly("none");
    assertThat(plan.events())
        .singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("Insufficient Node information"));
    assertThat(plan.removals()).containsExactly("InsufficientNodeInfo");
  }

  @Test
  void itsOwnAutoHintsAreAValidAllocationOnTheNextSync() {
    // kube-controller-manager runs the same check: hints it finds valid it leaves alone.
    autoHints.setNodes(
        List.of(
            node("a", "zone-a", "3500m"), node("b", "zone-b", "3500m"), node("c", "zone-c", "3")));
    var skewed =
        slice(
            "s1",
            "svc",
            ready("10.0.0.1", "zone-a", "a"),
            ready("10.0.0.2", "zone-a", "a"),
            ready("10.0.0.3", "zone-a", "a"),
            ready("10.0.0.4", "zone-a", "a"),
            ready("10.0.0.5", "zone-a", "a"),
            ready("10.0.0.6", "zone-b", "b"),
            ready("10.0.0.7", "zone-b", "b"),
            ready("10.0.0.8", "zone-c", "c"),
            ready("10.0.0.9", "zone-c", "c"),
            ready("10.0.0.10", "zone-c", "c"));

    var first = planner.plan(auto(null), List.of(skewed));
    var second = planner.plan(auto(null), first.updates());

    assertThat(first.updates()).hasSize(1);
    assertThat(zonesOf(first.updates().get(0)).stream().filter("zone-b"::equals).count())
        .as("zone-b received one")
        .isEqualTo(3);
    assertThat(second.updates()).isEmpty();
  }
}
