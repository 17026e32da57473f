package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.SVC;
import static dev.proxima.controller.hints.auto.AutoFixtures.info;
import static dev.proxima.controller.hints.auto.AutoFixtures.ready;
import static dev.proxima.controller.hints.auto.AutoFixtures.readyNode;
import static dev.proxima.controller.hints.auto.AutoFixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.testing.Fixtures;
import dev.proxima.model.ObjectKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AutoHintCacheTest {
  private final AutoHintCache cache = new AutoHintCache();

  private static SliceInfo twoPerZone(ObjectKey service, String addressType) {
    return new SliceInfo(
        service,
        addressType,
        List.of(
            Fixtures.sliceOfType(
                service.name() + "-" + addressType,
                service.name(),
                addressType,
                ready("10.0.0.1", "zone-a"),
                ready("10.0.0.2", "zone-a"),
                ready("10.0.0.3", "zone-b"),
                ready("10.0.0.4", "zone-b"))),
        List.of(),
        List.of());
  }

  private static List<String> reasons(AutoHintResult result) {
    return result.events().stream().map(PlannedEvent::reason).toList();
  }

  private void evenNodes() {
    cache.setNodes(List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4")));
  }

  @Test
  void beforeAnyNodesAreSeenHintsAreRefusedAsReadyInOneZone() {
    var result = cache.addHints(twoPerZone(SVC, "IPv4"));

    assertThat(result.events())
        .extracting(PlannedEvent::message)
        .containsExactly("Nodes only ready in one zone, addressType: IPv4");
  }

  @Test
  void recordsTheAllocationAndEmitsEnabledOnlyOnTheFirstSuccessfulSync() {
    evenNodes();

    var first = cache.addHints(twoPerZone(SVC, "IPv4"));
    var second = cache.addHints(twoPerZone(SVC, "IPv4"));

    assertThat(reasons(first)).containsExactly("TopologyAwareHintsEnabled");
    assertThat(second.events()).isEmpty();
    assertThat(cache.hasPopulatedHints(SVC)).isTrue();
    assertThat(cache.allocatedByZone(SVC, "IPv4")).isEqualTo(Map.of("zone-a", 2, "zone-b", 2));
  }

  @Test
  void aRefusalForgetsTheAllocationAndThePopulatedFlag() {
    evenNodes();
    cache.addHints(twoPerZone(SVC, "IPv4"));

    cache.addHints(info(List.of(slice("c1", ready("10.0.0.1", "zone-a"))), List.of(), List.of()));

    assertThat(cache.hasPopulatedHints(SVC)).isFalse();
    assertThat(cache.allocatedByZone(SVC, "IPv4")).isEmpty();
    assertThat(cache.overloadedServices()).isEmpty();
  }

  @Test
  void populatedIsPerServiceSoRemovingOneAddressTypeReEnablesTheOther() {
    evenNodes();
    assertThat(reasons(cache.addHints(twoPerZone(SVC, "IPv4"))))
        .containsExactly("TopologyAwareHintsEnabled");
    assertThat(cache.addHints(twoPerZone(SVC, "IPv6")).events()).isEmpty();

    cache.removeHints(SVC, "IPv6");

    assertThat(cache.allocatedByZone(SVC, "IPv4")).isNotEmpty();
    assertThat(reasons(cache.addHints(twoPerZone(SVC, "IPv4"))))
        .containsExactly("TopologyAwareHintsEnabled");
  }

  @Test
  void listsServicesOverloadedByNewRatiosInKeyOrder() {
    evenNodes();
    var other = new ObjectKey("alpha", "svc");
    cache.addHints(twoPerZone(SVC, "IPv4"));
    cache.addHints(twoPerZone(other, "IPv4"));
    assertThat(cache.overloadedServices()).isEmpty();

    cache.setNodes(
        List.of(readyNode("zone-a", "2"), readyNode("zone-b", "2"), readyNode("zone-c", "4")));

    assertThat(cache.overloadedServices()).containsExactly(other, SVC);
  }

  @Test
  void issue123401ServicesWhoseHintsWereRemovedAreNotRequeuedWhenNodeInfoComesBack() {
    evenNodes();
    cache.addHints(twoPerZone(SVC, "IPv4"));

    cache.setNodes(
        List.of(readyNode("zone-a", "4"), readyNode("zone-b", "4"), readyNode(null, "4")));
    assertThat(cache.overloadedServices()).containsExactly(SVC);
    var removed = cache.addHints(twoPerZone(SVC, "IPv4"));
    assertThat(removed.hintsPopulated()).isFalse();

    evenNodes();

    assertThat(cache.overloadedServices()).isEmpty();
    assertThat(reasons(cache.addHints(twoPerZone(SVC, "IPv4"))))
        .containsExactly("TopologyAwareHintsEnabled");
  }
}
