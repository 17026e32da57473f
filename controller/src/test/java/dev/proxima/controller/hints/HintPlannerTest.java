package dev.proxima.controller.hints;

import static dev.proxima.controller.testing.Fixtures.endpoint;
import static dev.proxima.controller.testing.Fixtures.hints;
import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static dev.proxima.controller.testing.Fixtures.sliceOfType;
import static dev.proxima.controller.testing.Fixtures.unready;
import static dev.proxima.controller.testing.Fixtures.withHints;
import static dev.proxima.controller.testing.Fixtures.zoneAndNodeHint;
import static dev.proxima.controller.testing.Fixtures.zoneHint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.model.Annotations;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HintPlannerTest {
  private final HintPlanner planner = new HintPlanner();

  /**
   * One row per case: the Service's trafficDistribution, the slices as they are, and the hints each
   * endpoint of each slice must have afterwards (slice name to a list of expected hints, one per
   * endpoint; null means no hints). Slices not named in the expectation must not be written.
   */
  record Case(
      String name,
      String trafficDistribution,
      List<EndpointSlice> slices,
      Map<String, List<EndpointHints>> expectedWrites) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> upstreamAndEdgeCases() {
    return Stream.of(
        new Case(
            "PreferClose hints every ready endpoint to its own zone",
            "PreferClose",
            List.of(
                slice(
                    "s1",
                    "svc",
                    ready("10.0.0.1", "zone-a", "n1"),
                    ready("10.0.0.2", "zone-b", "n2")),
                slice("s2", "svc", ready("10.0.0.3", "zone-c", "n3"))),
            Map.of(
                "s1", List.of(zoneHint("zone-a"), zoneHint("zone-b")),
                "s2", List.of(zoneHint("zone-c")))),
        new Case(
            "PreferSameZone behaves exactly like PreferClose",
            "PreferSameZone",
            List.of(
                slice(
                    "s1",
                    "svc",
                    ready("10.0.0.1", "zone-a", "n1"),
                    ready("10.0.0.2", "zone-b", "n2"))),
            Map.of("s1", List.of(zoneHint("zone-a"), zoneHint("zone-b")))),
        new Case(
            "PreferSameNode adds a node hint next to the zone hint",
            "PreferSameNode",
            List.of(
                slice(
                    "s1",
                    "svc",
                    ready("10.0.0.1", "zone-a", "n1"),
                    ready("10.0.0.2", "zone-b", "n2"))),
            Map.of(
                "s1", List.of(zoneAndNodeHint("zone-a", "n1"), zoneAndNodeHint("zone-b", "n2")))),
        new Case(
            "wrong hints are corrected in every slice that has them",
            "PreferSameZone",
            List.of(
                slice(
                    "s1", "svc", withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-b"))),
                slice(
                    "s2", "svc", withHints(ready("10.0.0.2", "zone-b", "n2"), zoneHint("zone-a"))),
                slice(
                    "s3", "svc", withHints(ready("10.0.0.3", "zone-c", "n3"), zoneHint("zone-c")))),
            Map.of("s1", List.of(zoneHint("zone-a")), "s2", List.of(zoneHint("zone-b")))),
        new Case(
            "PreferClose writes no hints when endpoints have no zone",
            "PreferClose",
            List.of(
                slice("s1", "svc", ready("10.0.0.1", null, "n1"), ready("10.0.0.2", null, "n2"))),
            Map.of()),
        new Case(
            "PreferSameNode writes node-only hints when endpoints have no zone",
            "PreferSameNode",
            List.of(slice("s1", "svc", ready("10.0.0.1", null, "n1"))),
            Map.of("s1", List.of(hints(null, List.of("n1"))))),
        new Case(
            "an unready endpoint without hints does not make its slice need a write",
            "PreferSameZone",
            List.of(
                slice(
                    "s1",
                    "svc",
                    withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-a")),
                    unready("10.0.0.2", "zone-b", "n2"))),
            Map.of()),
        new Case(
            "an unsupported value removes every hint",
            "Unknown",
            List.of(
                slice(
                    "s1", "svc", withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-a"))),
                slice("s2", "svc", ready("10.0.0.2", "zone-b", "n2"))),
            Map.of("s1", Arrays.asList((EndpointHints) null))),
        new Case(
            "an absent value removes hints from ready and unready endpoints alike",
            null,
            List.of(
                slice(
                    "s1",
                    "svc",
                    withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-a")),
                    withHints(unready("10.0.0.2", "zone-b", "n2"), zoneHint("zone-b")))),
            Map.of("s1", Arrays.asList(null, null))),
        new Case(
            "an empty hints object counts as hints when hints must go",
            null,
            List.of(
                slice(
                    "s1", "svc", withHints(ready("10.0.0.1", "zone-a", "n1"), hints(null, null)))),
            Map.of("s1", Arrays.asList((EndpointHints) null))),
        new Case(
            "an unready endpoint keeps stale hints while its ready neighbours are rewritten",
            "PreferSameZone",
            List.of(
                slice(
                    "s1",
                    "svc",
                    ready("10.0.0.1", "zone-a", "n1"),
                    withHints(unready("10.0.0.2", "zone-b", "n2"), zoneHint("zone-x")))),
            Map.of("s1", List.of(zoneHint("zone-a"), zoneHint("zone-x")))),
        new Case(
            "a second zone in the hint list is rewritten even though the right zone is in it",
            "PreferSameZone",
            List.of(
                slice(
                    "s1",
                    "svc",
                    withHints(
                        ready("10.0.0.1", "zone-a", "n1"),
                        hints(List.of("zone-a", "zone-b"), null)))),
            Map.of("s1", List.of(zoneHint("zone-a")))),
        new Case(
            "node hints left from PreferSameNode are removed when the value becomes PreferSameZone",
            "PreferSameZone",
            List.of(
                slice(
                    "s1",
                    "svc",
                    withHints(ready("10.0.0.1", "zone-a", "n1"), zoneAndNodeHint("zone-a", "n1")))),
            Map.of("s1", List.of(zoneHint("zone-a")))),
        new Case(
            "a zone hint on an endpoint that lost its zone is removed",
            "PreferSameZone",
            List.of(
                slice("s1", "svc", withHints(ready("10.0.0.1", null, "n1"), zoneHint("zone-a")))),
            Map.of("s1", Arrays.asList((EndpointHints) null))),
        new Case(
            "PreferSameNode keeps zone-only hints for endpoints without a node name",
            "PreferSameNode",
            List.of(slice("s1", "svc", ready("10.0.0.1", "zone-a", null))),
            Map.of("s1", List.of(zoneHint("zone-a")))),
        new Case(
            "an endpoint with unknown readiness is treated as unready",
            "PreferSameZone",
            List.of(slice("s1", "svc", endpoint("10.0.0.1", "zone-a", "n1", null).build())),
            Map.of()),
        new Case(
            "correct hints need no write",
            "PreferSameNode",
            List.of(
                slice(
                    "s1",
                    "svc",
                    withHints(ready("10.0.0.1", "zone-a", "n1"), zoneAndNodeHint("zone-a", "n1")))),
            Map.of()),
        new Case(
            "FQDN slices are never hinted",
            "PreferSameZone",
            List.of(sliceOfType("s1", "svc", "FQDN", ready("example.com", "zone-a", "n1"))),
            Map.of()),
        new Case(
            "IPv6 slices are hinted like IPv4 slices",
            "PreferSameZone",
            List.of(sliceOfType("s1", "svc", "IPv6", ready("fd00::1", "zone-a", "n1"))),
            Map.of("s1", List.of(zoneHint("zone-a")))),
        new Case(
            "slices being deleted are left alone",
            "PreferSameZone",
            List.of(
                new EndpointSliceBuilder(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1")))
                    .editMetadata()
                    .withDeletionTimestamp("2026-01-01T00:00:00Z")
                    .endMetadata()
                    .build()),
            Map.of()),
        new Case(
            "a slice without endpoints needs no write",
            "PreferSameZone",
            List.of(slice("s1", "svc")),
            Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamAndEdgeCases")
  void writesExactlyTheHintsUpstreamWrites(Case testCase) {
    var plan = planner.plan(service("svc", testCase.trafficDistribution()), testCase.slices());

    assertThat(plan.updates())
        .extracting(update -> update.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(testCase.expectedWrites().keySet());
    for (var update : plan.updates()) {
      var expected = testCase.expectedWrites().get(update.getMetadata().getName());
      assertThat(update.getEndpoints())
          .extracting(endpoint -> describe(endpoint.getHints()))
          .as("hints of %s", update.getMetadata().getName())
          .containsExactlyElementsOf(expected.stream().map(HintPlannerTest::describe).toList());
    }
  }

  /** Hints as the API server would serialise them: an absent list and an empty one are the same. */
  private static String describe(EndpointHints hints) {
    if (hints == null) {
      return "no hints";
    }
    var zones = hints.getForZones() == null ? List.of() : hints.getForZones();
    var nodes = hints.getForNodes() == null ? List.of() : hints.getForNodes();
    return "zones=" + zones + " nodes=" + nodes;
  }

  @Test
  void neverMutatesTheSlicesItIsGiven() {
    var original =
        slice("s1", "svc", withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-b")));
    var snapshot = new EndpointSliceBuilder(original).build();

    var plan = planner.plan(service("svc", "PreferSameNode"), List.of(original));

    assertThat(plan.updates()).hasSize(1);
    assertThat(plan.updates().get(0)).isNotSameAs(original);
    assertThat(original).isEqualTo(snapshot);
  }

  @Test
  void keepsTheResourceVersionOfTheSliceItRewrites() {
    var original =
        new EndpointSliceBuilder(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1")))
            .editMetadata()
            .withResourceVersion("42")
            .endMetadata()
            .build();

    var plan = planner.plan(service("svc", "PreferSameZone"), List.of(original));

    assertThat(plan.updates())
        .singleElement()
        .satisfies(update -> assertThat(update.getMetadata().getResourceVersion()).isEqualTo("42"));
  }

  @Test
  void reportsTheRawValueSoPreferCloseStaysVisibleInMetrics() {
    var plan = planner.plan(service("svc", "PreferClose"), List.of());

    assertThat(plan.mode()).isEqualTo(HintMode.TRAFFIC_DISTRIBUTION);
    assertThat(plan.trafficDistributionLabel()).isEqualTo("PreferClose");
    assertThat(plan.mode().topologyLabel()).isEqualTo("Disabled");
  }

  @Test
  void warnsAboutAnUnsupportedValueAndNamesIt() {
    var plan = planner.plan(service("svc", "PreferSameRack"), List.of());

    assertThat(plan.mode()).isEqualTo(HintMode.NONE);
    assertThat(plan.trafficDistributionLabel()).isEmpty();
    assertThat(plan.events())
        .singleElement()
        .satisfies(
            event -> {
              assertThat(event.type()).isEqualTo(PlannedEvent.Type.Warning);
              assertThat(event.reason()).isEqualTo(EventReasons.UNSUPPORTED_TRAFFIC_DISTRIBUTION);
              assertThat(event.message()).contains("\"PreferSameRack\"");
            });
  }

  @Test
  void theDeprecatedAnnotationShadowsTopologyModeEvenWhenEmpty() {
    var service =
        service(
            "svc",
            "PreferSameZone",
            Map.of(Annotations.TOPOLOGY_AWARE_HINTS, "", Annotations.TOPOLOGY_MODE, "Auto"));

    var plan =
        planner.plan(service, List.of(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))));

    assertThat(plan.mode()).isEqualTo(HintMode.TRAFFIC_DISTRIBUTION);
    assertThat(plan.updates()).hasSize(1);
  }

  @Test
  void plansSlicesInNameOrder() {
    var plan =
        planner.plan(
            service("svc", "PreferSameZone"),
            List.of(
                slice("b", "svc", ready("10.0.0.2", "zone-b", "n2")),
                slice("a", "svc", ready("10.0.0.1", "zone-a", "n1"))));

    assertThat(plan.updates()).extracting(s -> s.getMetadata().getName()).containsExactly("a", "b");
  }
}
