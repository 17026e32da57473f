package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.hinted;
import static dev.proxima.controller.hints.auto.AutoFixtures.info;
import static dev.proxima.controller.hints.auto.AutoFixtures.ready;
import static dev.proxima.controller.hints.auto.AutoFixtures.slice;
import static dev.proxima.controller.hints.auto.AutoFixtures.unknown;
import static dev.proxima.controller.hints.auto.AutoFixtures.unready;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StickyHintsTest {

  private static Map<String, Allocation> maximums(Map<String, Integer> maximumByZone) {
    return maximumByZone.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> new Allocation(0, e.getValue(), 0)));
  }

  /** Upstream's Test_getHintsByZone; an empty Optional is upstream's nil (slice invalid). */
  static Stream<Arguments> upstreamHintsByZoneCases() {
    return Stream.of(
        Arguments.of("empty", slice("s"), Map.of(), Map.of(), Optional.of(Map.of())),
        Arguments.of(
            "single zone hint",
            slice("s", hinted(ready("10.0.0.1", "zone-a"), "zone-a")),
            Map.of("zone-a", 1),
            Map.of("zone-a", 3),
            Optional.of(Map.of("zone-a", 1))),
        Arguments.of(
            "single zone hint with 1 unready endpoint and 1 unknown endpoint",
            slice(
                "s",
                hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
                hinted(unready("10.0.0.2", "zone-a"), "zone-a"),
                hinted(unknown("10.0.0.3", "zone-a"), "zone-a")),
            Map.of("zone-a", 1),
            Map.of("zone-a", 3),
            Optional.of(Map.of("zone-a", 1))),
        Arguments.of(
            "multiple zone hints",
            slice(
                "s",
                hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
                hinted(ready("10.0.0.2", "zone-a"), "zone-b"),
                hinted(ready("10.0.0.3", "zone-b"), "zone-b")),
            Map.of("zone-a", 1, "zone-b", 1, "zone-c", 1),
            Map.of("zone-a", 3, "zone-b", 3, "zone-c", 3),
            Optional.of(Map.of("zone-a", 1, "zone-b", 2))),
        Arguments.of(
            "invalid by zones that no longer requires any allocations",
            slice("s", hinted(ready("10.0.0.1", "zone-a"), "zone-non-existent")),
            Map.of("zone-a", 1, "zone-b", 1, "zone-c", 1),
            Map.of("zone-a", 3),
            Optional.empty()),
        Arguments.of(
            "invalid by endpoints with nil hints",
            slice("s", ready("10.0.0.1", "zone-a")),
            Map.of(),
            Map.of("zone-a", 3),
            Optional.empty()),
        Arguments.of(
            "invalid by endpoint with no hints",
            slice("s", hinted(ready("10.0.0.1", "zone-a"))),
            Map.of(),
            Map.of("zone-a", 3),
            Optional.empty()),
        Arguments.of(
            "invalid by hints that would make minimum allocations impossible",
            slice(
                "s",
                hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
                hinted(ready("10.0.0.2", "zone-a"), "zone-a")),
            Map.of("zone-a", 1),
            Map.of("zone-a", 2),
            Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamHintsByZoneCases")
  void countsOrRejectsASlicesHintsLikeUpstream(
      String name,
      EndpointSlice slice,
      Map<String, Integer> allocatedSoFar,
      Map<String, Integer> maximumByZone,
      Optional<Map<String, Integer>> expected) {
    var actual = StickyHints.hintsByZone(slice, allocatedSoFar, maximums(maximumByZone));

    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void anUnreadyEndpointWithoutHintsDoesNotInvalidateTheSlice() {
    var slice =
        slice("s", hinted(ready("10.0.0.1", "zone-a"), "zone-a"), unready("10.0.0.2", "zone-a"));

    assertThat(
            StickyHints.hintsByZone(slice, Map.of(), maximums(Map.of("zone-a", 1))).orElseThrow())
        .isEqualTo(Map.of("zone-a", 1));
  }

  @Test
  void keepsValidSlicesWithARunningCountAndMovesCopiesOfTheRestToUpdate() {
    var first = slice("first", hinted(ready("10.0.0.1", "zone-a"), "zone-a"));
    var second = slice("second", hinted(ready("10.0.0.2", "zone-a"), "zone-a"));
    var third = slice("third", hinted(ready("10.0.0.3", "zone-b"), "zone-b"));
    var working = WorkingSlices.copyOf(info(List.of(), List.of(), List.of(first, second, third)));

    // zone-a may hold one endpoint: the first slice fits, the second would exceed it.
    var allocated = StickyHints.keepValid(working, maximums(Map.of("zone-a", 1, "zone-b", 1)));

    assertThat(allocated).isEqualTo(Map.of("zone-a", 1, "zone-b", 1));
    assertThat(working.unchanged).containsExactly(first, third);
    assertThat(working.toUpdate).hasSize(1);
    assertThat(working.toUpdate.get(0)).isEqualTo(second).isNotSameAs(second);
  }
}
