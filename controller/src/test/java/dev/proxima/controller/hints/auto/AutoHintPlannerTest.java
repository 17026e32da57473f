package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.SVC;
import static dev.proxima.controller.hints.auto.AutoFixtures.hinted;
import static dev.proxima.controller.hints.auto.AutoFixtures.hintsOf;
import static dev.proxima.controller.hints.auto.AutoFixtures.info;
import static dev.proxima.controller.hints.auto.AutoFixtures.ready;
import static dev.proxima.controller.hints.auto.AutoFixtures.readyNode;
import static dev.proxima.controller.hints.auto.AutoFixtures.slice;
import static dev.proxima.controller.hints.auto.AutoFixtures.unknown;
import static dev.proxima.controller.hints.auto.AutoFixtures.unready;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.testing.Fixtures;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AutoHintPlannerTest {
  private static final ZoneCpuRatios WORKED_EXAMPLE_RATIOS =
      ZoneCpuRatios.of(Map.of("zone-a", 0.35, "zone-b", 0.35, "zone-c", 0.30));
  private static final ZoneCpuRatios EVEN_TWO_ZONES =
      ZoneCpuRatios.of(Map.of("zone-a", 0.5, "zone-b", 0.5));

  private final AutoHintPlanner planner = new AutoHintPlanner();

  private static PlannedEvent disabled(String message) {
    return PlannedEvent.warning(SVC, "TopologyAwareHintsDisabled", message);
  }

  private static PlannedEvent enabled(String addressType) {
    return PlannedEvent.normal(
        SVC,
        "TopologyAwareHintsEnabled",
        "Topology Aware Hints has been enabled, addressType: " + addressType);
  }

  /**
   * Upstream's TestAddHints. Expected slices are given as {@code ip:hints} per endpoint (see {@link
   * AutoFixtures#hintsOf}); upstream compares Event messages by prefix, these compare them whole.
   */
  record Case(
      String name,
      ZoneCpuRatios ratios,
      SliceInfo info,
      Map<String, Integer> expectedAllocated,
      List<List<String>> expectedToCreate,
      List<List<String>> expectedToUpdate,
      List<PlannedEvent> expectedEvents) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> upstreamAddHintsCases() {
    var insufficient =
        disabled(
            "Insufficient Node information: allocatable CPU or zone not specified on one or more"
                + " nodes, addressType: IPv4");
    return Stream.of(
        new Case(
            "empty",
            ZoneCpuRatios.insufficient(),
            info(List.of(), List.of(), List.of()),
            Map.of(),
            List.of(),
            List.of(),
            List.of(insufficient)),
        new Case(
            "slice to create, no zone ratios",
            ZoneCpuRatios.insufficient(),
            info(List.of(slice("c1", ready("10.1.2.3", "zone-a"))), List.of(), List.of()),
            Map.of(),
            List.of(List.of("10.1.2.3:-")),
            List.of(),
            List.of(insufficient)),
        new Case(
            "slice to create with 2 endpoints, zone ratios require 3",
            ZoneCpuRatios.of(Map.of("zone-a", 0.3, "zone-b", 0.4, "zone-c", 0.3)),
            info(
                List.of(slice("c1", ready("10.1.2.3", "zone-a"), ready("10.1.2.4", "zone-b"))),
                List.of(),
                List.of()),
            Map.of(),
            List.of(List.of("10.1.2.3:-", "10.1.2.4:-")),
            List.of(),
            List.of(
                disabled(
                    "Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4"))),
        new Case(
            "slice to create with 2 endpoints, zone ratios only require 2",
            ZoneCpuRatios.of(Map.of("zone-a", 0.45, "zone-b", 0.55)),
            info(
                List.of(slice("c1", ready("10.1.2.3", "zone-a"), ready("10.1.2.4", "zone-b"))),
                List.of(),
                List.of()),
            Map.of("zone-a", 1, "zone-b", 1),
            List.of(List.of("10.1.2.3:zone-a", "10.1.2.4:zone-b")),
            List.of(),
            List.of(enabled("IPv4"))),
        new Case(
            "slice to create with 2 ready, 1 unready, 1 unknown endpoints, zone ratios only"
                + " require 2",
            ZoneCpuRatios.of(Map.of("zone-a", 0.45, "zone-b", 0.55)),
            info(
                List.of(
                    slice(
                        "c1",
                        ready("10.1.2.3", "zone-a"),
                        ready("10.1.2.4", "zone-b"),
                        unready("10.1.2.5", "zone-b"),
                        unknown("10.1.2.6", "zone-b"))),
                List.of(),
                List.of()),
            Map.of("zone-a", 1, "zone-b", 1),
            List.of(List.of("10.1.2.3:zone-a", "10.1.2.4:zone-b", "10.1.2.5:-", "10.1.2.6:-")),
            List.of(),
            List.of(enabled("IPv4"))),
        new Case(
            "slices to create and update within 3 zone threshold",
            WORKED_EXAMPLE_RATIOS,
            workedExample(),
            Map.of("zone-a", 4, "zone-b", 3, "zone-c", 3),
            List.of(
                List.of("10.1.2.3:zone-b", "10.1.2.4:zone-b"),
                List.of("10.1.3.3:zone-c", "10.1.3.4:zone-c", "10.1.3.5:zone-a")),
            List.of(
                List.of("10.2.2.3:zone-a", "10.2.2.4:zone-a"),
                List.of("10.2.3.3:zone-b", "10.2.3.4:zone-c", "10.2.3.5:zone-a")),
            List.of(enabled("IPv4"))));
  }

  /** Ten ready endpoints: five in zone-a, two in zone-b, three in zone-c. */
  private static SliceInfo workedExample() {
    return info(
        List.of(
            slice("c1", ready("10.1.2.3", "zone-a"), ready("10.1.2.4", "zone-b")),
            slice(
                "c2",
                ready("10.1.3.3", "zone-c"),
                ready("10.1.3.4", "zone-c"),
                ready("10.1.3.5", "zone-a"))),
        List.of(
            slice("u1", ready("10.2.2.3", "zone-a"), ready("10.2.2.4", "zone-a")),
            slice(
                "u2",
                ready("10.2.3.3", "zone-b"),
                ready("10.2.3.4", "zone-c"),
                ready("10.2.3.5", "zone-a"))),
        List.of());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamAddHintsCases")
  void addsHintsLikeUpstream(Case testCase) {
    var result = planner.plan(testCase.ratios(), testCase.info(), false);

    assertThat(hintsOf(result.toCreate())).isEqualTo(testCase.expectedToCreate());
    assertThat(hintsOf(result.toUpdate())).isEqualTo(testCase.expectedToUpdate());
    assertThat(result.events()).isEqualTo(testCase.expectedEvents());
    assertThat(result.allocatedByZone()).isEqualTo(testCase.expectedAllocated());
    assertThat(result.hintsPopulated()).isEqualTo(!testCase.expectedAllocated().isEmpty());
  }

  @Test
  void workedExampleMovesTheFirstZoneAEndpointInCreateOrderToZoneB() {
    var result = planner.plan(WORKED_EXAMPLE_RATIOS, workedExample(), false);

    assertThat(result.allocatedByZone())
        .containsExactly(Map.entry("zone-a", 4), Map.entry("zone-b", 3), Map.entry("zone-c", 3));
    assertThat(result.toCreate().get(0).getEndpoints().get(0).getZone()).isEqualTo("zone-a");
    assertThat(hintsOf(result.toCreate().get(0))).first().isEqualTo("10.1.2.3:zone-b");
    assertThat(result.events()).containsExactly(enabled("IPv4"));
  }

  @Test
  void theEnabledEventIsOnlyEmittedWhenHintsWereNotPopulatedBefore() {
    var result = planner.plan(WORKED_EXAMPLE_RATIOS, workedExample(), true);

    assertThat(result.hintsPopulated()).isTrue();
    assertThat(result.events()).isEmpty();
  }

  static Stream<Arguments> safeguards() {
    var zoned = slice("c1", ready("10.0.0.1", "zone-a"), ready("10.0.0.2", "zone-b"));
    return Stream.of(
        Arguments.of(
            ZoneCpuRatios.fromNodes(List.of(readyNode("zone-a", "4"), readyNode(null, "4"))),
            info(List.of(zoned), List.of(), List.of()),
            "Insufficient Node information: allocatable CPU or zone not specified on one or more"
                + " nodes"),
        Arguments.of(
            ZoneCpuRatios.of(Map.of("zone-a", 1.0)),
            info(List.of(zoned), List.of(), List.of()),
            "Nodes only ready in one zone"),
        Arguments.of(
            ZoneCpuRatios.of(Map.of("zone-a", 0.3, "zone-b", 0.4, "zone-c", 0.3)),
            info(List.of(zoned), List.of(), List.of()),
            "Insufficient number of endpoints (2 endpoints, 3 zones)"),
        Arguments.of(
            ZoneCpuRatios.of(Map.of("zone-a", 0.4, "zone-b", 0.6)),
            info(List.of(zoned), List.of(slice("u1", ready("10.0.0.3", "zone-b"))), List.of()),
            "Unable to allocate minimum required endpoints to each zone without exceeding"
                + " overload threshold (3 endpoints, 2 zones)"),
        Arguments.of(
            EVEN_TWO_ZONES,
            info(
                List.of(zoned),
                List.of(slice("u1", ready("10.0.0.3", "zone-b"), ready("10.0.0.4", null))),
                List.of()),
            "One or more endpoints do not have a zone specified"));
  }

  @ParameterizedTest(name = "{2}")
  @MethodSource("safeguards")
  void eachSafeguardRemovesEveryHintWithItsOwnWarning(
      ZoneCpuRatios ratios, SliceInfo slices, String message) {
    // Unready, so the ready count each case is built around stays the same.
    var stale =
        slice(
            "kept",
            hinted(unready("10.0.1.1", "zone-a"), "zone-a"),
            hinted(unready("10.0.1.2", "zone-b"), "zone-b"));
    var withStale = info(slices.toCreate(), slices.toUpdate(), List.of(stale));

    var result = planner.plan(ratios, withStale, true);

    assertThat(result.events()).containsExactly(disabled(message + ", addressType: IPv4"));
    assertThat(result.hintsPopulated()).isFalse();
    assertThat(result.allocatedByZone()).isEmpty();
    assertThat(result.unchanged()).isEmpty();
    assertThat(result.toUpdate())
        .last()
        .satisfies(moved -> assertThat(hintsOf(moved)).containsExactly("10.0.1.1:-", "10.0.1.2:-"));
    Stream.concat(result.toCreate().stream(), result.toUpdate().stream())
        .flatMap(slice -> slice.getEndpoints().stream())
        .forEach(endpoint -> assertThat(endpoint.getHints()).isNull());
  }

  @Test
  void issue122437ThreeEqualZonesWithElevenEndpointsLoseTheirHints() {
    var ratios =
        ZoneCpuRatios.fromNodes(
            List.of(readyNode("zone-a", "8"), readyNode("zone-b", "8"), readyNode("zone-c", "8")));
    var endpoints = new ArrayList<Endpoint>();
    int[] spread = {4, 4, 3};
    String[] zones = {"zone-a", "zone-b", "zone-c"};
    for (int z = 0; z < 3; z++) {
      for (int i = 0; i < spread[z]; i++) {
        endpoints.add(ready("10.0." + z + "." + i, zones[z]));
      }
    }

    var result =
        planner.plan(
            ratios,
            info(List.of(slice("c1", endpoints.toArray(Endpoint[]::new))), List.of(), List.of()),
            false);

    assertThat(result.events())
        .containsExactly(
            disabled(
                "Unable to allocate minimum required endpoints to each zone without exceeding"
                    + " overload threshold (11 endpoints, 3 zones), addressType: IPv4"));
    assertThat(result.hintsPopulated()).isFalse();
  }

  @Test
  void floatPrecisionDisablesHintsForRatiosPointFourAndPointSixWithThreeEndpoints() {
    var result =
        planner.plan(
            ZoneCpuRatios.of(Map.of("zone-a", 0.4, "zone-b", 0.6)),
            info(
                List.of(
                    slice(
                        "c1",
                        ready("10.0.0.1", "zone-a"),
                        ready("10.0.0.2", "zone-b"),
                        ready("10.0.0.3", "zone-b"))),
                List.of(),
                List.of()),
            false);

    assertThat(result.events())
        .extracting(PlannedEvent::message)
        .containsExactly(
            "Unable to allocate minimum required endpoints to each zone without exceeding"
                + " overload threshold (3 endpoints, 2 zones), addressType: IPv4");
    assertThat(hintsOf(result.toCreate().get(0)))
        .containsExactly("10.0.0.1:-", "10.0.0.2:-", "10.0.0.3:-");
  }

  @Test
  void theNoHintsAllocatedSafeguardRemovesEveryHint() {
    var stale = slice("kept", hinted(ready("10.0.1.1", "zone-a"), "zone-a"));
    var slices = info(List.of(slice("c1", ready("10.0.0.1", "zone-a"))), List.of(), List.of(stale));
    var working = WorkingSlices.copyOf(slices);
    working.toCreate.get(0).getEndpoints().get(0).setHints(EndpointFacts.zoneHint("zone-a"));

    var result = AutoHintPlanner.conclude(working, slices, new TreeMap<>(), true);

    assertThat(result.events())
        .containsExactly(disabled("No hints allocated for zones, addressType: IPv4"));
    assertThat(hintsOf(result.toCreate())).containsExactly(List.of("10.0.0.1:-"));
    assertThat(hintsOf(result.toUpdate())).containsExactly(List.of("10.0.1.1:-"));
    assertThat(result.hintsPopulated()).isFalse();
  }

  @Test
  void theReconcilersDisabledEventUsesUpstreamsText() {
    assertThat(AutoHintEvents.autoSwitchedOff(SVC, "IPv6"))
        .isEqualTo(disabled("Topology Aware Hints has been disabled, addressType: IPv6"));
  }

  @Test
  void messagesNameTheIpv6AddressType() {
    var ipv6Slice =
        Fixtures.sliceOfType(
            "c1", SVC.name(), "IPv6", ready("fd00::1", "zone-a"), ready("fd00::2", "zone-b"));
    var info = new SliceInfo(SVC, "IPv6", List.of(ipv6Slice), List.of(), List.of());

    var enabledResult = planner.plan(EVEN_TWO_ZONES, info, false);
    var disabledResult = planner.plan(ZoneCpuRatios.insufficient(), info, false);

    assertThat(enabledResult.events()).containsExactly(enabled("IPv6"));
    assertThat(disabledResult.events())
        .extracting(PlannedEvent::message)
        .singleElement()
        .asString()
        .startsWith("Insufficient Node information")
        .endsWith(", addressType: IPv6");
  }

  @Test
  void autoNeverWritesNodeHintsAndDropsStaleOnes() {
    var staleNodeHint = Fixtures.zoneAndNodeHint("zone-a", "node-1");
    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(),
                List.of(
                    slice(
                        "u1",
                        Fixtures.withHints(ready("10.0.0.1", "zone-a"), staleNodeHint),
                        ready("10.0.0.2", "zone-b"))),
                List.of(
                    slice(
                        "k1",
                        Fixtures.withHints(ready("10.0.0.3", "zone-a"), staleNodeHint),
                        ready("10.0.0.4", "zone-b")))),
            false);

    assertThat(hintsOf(result.toUpdate()))
        .containsExactly(
            List.of("10.0.0.1:zone-a", "10.0.0.2:zone-b"),
            List.of("10.0.0.3:zone-a", "10.0.0.4:zone-b"));
    result.toUpdate().stream()
        .flatMap(slice -> slice.getEndpoints().stream())
        .forEach(endpoint -> assertThat(endpoint.getHints().getForNodes()).isNull());
  }

  @Test
  void unreadyEndpointsAreLeftOutOfTheCountAndGetNoNewHints() {
    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(
                    slice(
                        "c1",
                        ready("10.0.0.1", "zone-a"),
                        unready("10.0.0.2", "zone-a"),
                        unknown("10.0.0.3", "zone-b"),
                        unready("10.0.0.4", null))),
                List.of(),
                List.of()),
            false);

    assertThat(result.events())
        .containsExactly(
            disabled("Insufficient number of endpoints (1 endpoints, 2 zones), addressType: IPv4"));
  }

  @Test
  void unreadyEndpointsWithoutZoneDoNotTriggerTheNoZoneSafeguard() {
    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(
                    slice(
                        "c1",
                        ready("10.0.0.1", "zone-a"),
                        ready("10.0.0.2", "zone-b"),
                        unready("10.0.0.3", null))),
                List.of(),
                List.of()),
            false);

    assertThat(result.hintsPopulated()).isTrue();
    assertThat(hintsOf(result.toCreate().get(0)))
        .containsExactly("10.0.0.1:zone-a", "10.0.0.2:zone-b", "10.0.0.3:-");
  }

  @Test
  void unreadyEndpointsKeepWhateverHintsTheyHadLikeUpstream() {
    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(),
                List.of(
                    slice(
                        "u1",
                        ready("10.0.0.1", "zone-a"),
                        ready("10.0.0.2", "zone-b"),
                        hinted(unready("10.0.0.3", "zone-a"), "zone-b"))),
                List.of()),
            false);

    assertThat(hintsOf(result.toUpdate().get(0)))
        .containsExactly("10.0.0.1:zone-a", "10.0.0.2:zone-b", "10.0.0.3:zone-b");
  }

  @Test
  void validHintsOnUnchangedSlicesAreStickyEvenWhenCrossZone() {
    // Upstream's own worked example, one sync later: the re-hinted slice is now unchanged.
    var settled =
        slice(
            "k1",
            hinted(ready("10.1.2.3", "zone-a"), "zone-b"),
            hinted(ready("10.1.2.4", "zone-b"), "zone-b"));
    var rest =
        slice(
            "k2",
            hinted(ready("10.1.3.3", "zone-c"), "zone-c"),
            hinted(ready("10.1.3.4", "zone-c"), "zone-c"),
            hinted(ready("10.1.3.5", "zone-a"), "zone-a"),
            hinted(ready("10.2.2.3", "zone-a"), "zone-a"),
            hinted(ready("10.2.2.4", "zone-a"), "zone-a"),
            hinted(ready("10.2.3.3", "zone-b"), "zone-b"),
            hinted(ready("10.2.3.4", "zone-c"), "zone-c"),
            hinted(ready("10.2.3.5", "zone-a"), "zone-a"));

    var result =
        planner.plan(
            WORKED_EXAMPLE_RATIOS, info(List.of(), List.of(), List.of(settled, rest)), true);

    assertThat(result.unchanged()).containsExactly(settled, rest);
    assertThat(result.unchanged().get(0)).isSameAs(settled);
    assertThat(result.toCreate()).isEmpty();
    assertThat(result.toUpdate()).isEmpty();
    assertThat(result.events()).isEmpty();
    assertThat(result.allocatedByZone()).isEqualTo(Map.of("zone-a", 4, "zone-b", 3, "zone-c", 3));
  }

  @Test
  void anUnchangedSliceWithInvalidHintsIsCopiedToTheUpdatesAndRehinted() {
    var invalid =
        slice(
            "k1",
            hinted(ready("10.0.0.1", "zone-a"), "zone-gone"),
            hinted(ready("10.0.0.2", "zone-b"), "zone-b"));

    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(),
                List.of(slice("u1", ready("10.0.0.3", "zone-a"), ready("10.0.0.4", "zone-b"))),
                List.of(invalid)),
            false);

    assertThat(result.unchanged()).isEmpty();
    assertThat(result.toUpdate())
        .extracting(slice -> slice.getMetadata().getName())
        .containsExactly("u1", "k1");
    assertThat(hintsOf(result.toUpdate().get(1)))
        .containsExactly("10.0.0.1:zone-a", "10.0.0.2:zone-b");
    assertThat(result.toUpdate().get(1)).isNotSameAs(invalid);
  }

  @Test
  void onlyEndpointsOfSlicesBeingWrittenAreRedistributed() {
    // desired 3 per zone, maximum 3: the unchanged slice fills zone-a, so the two new zone-a
    // endpoints go to zone-b while the unchanged slice keeps its hints.
    var unchanged =
        slice(
            "k1",
            hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
            hinted(ready("10.0.0.2", "zone-a"), "zone-a"),
            hinted(ready("10.0.0.3", "zone-a"), "zone-a"));
    var toCreate =
        slice(
            "c1",
            ready("10.0.1.1", "zone-b"),
            ready("10.0.1.2", "zone-a"),
            ready("10.0.1.3", "zone-a"));

    var result =
        planner.plan(EVEN_TWO_ZONES, info(List.of(toCreate), List.of(), List.of(unchanged)), false);

    assertThat(result.unchanged()).containsExactly(unchanged);
    assertThat(hintsOf(result.toCreate().get(0)))
        .containsExactly("10.0.1.1:zone-b", "10.0.1.2:zone-b", "10.0.1.3:zone-b");
    assertThat(result.allocatedByZone()).isEqualTo(Map.of("zone-a", 3, "zone-b", 3));
  }

  @Test
  void aReadyEndpointWithoutZoneAlsoClearsStickyHintsOfUnchangedSlices() {
    var sticky =
        slice(
            "k1",
            hinted(ready("10.0.0.1", "zone-a"), "zone-a"),
            hinted(ready("10.0.0.2", "zone-b"), "zone-b"));
    var invalid = slice("k2", ready("10.0.0.3", "zone-a"));

    var result =
        planner.plan(
            EVEN_TWO_ZONES,
            info(
                List.of(slice("c1", ready("10.0.1.1", "zone-b"), ready("10.0.1.2", ""))),
                List.of(slice("u1", ready("10.0.2.1", "zone-a"))),
                List.of(sticky, invalid)),
            true);

    assertThat(result.events())
        .containsExactly(
            disabled("One or more endpoints do not have a zone specified, addressType: IPv4"));
    assertThat(result.toUpdate())
        .extracting(slice -> slice.getMetadata().getName())
        .containsExactly("u1", "k2", "k1");
    assertThat(hintsOf(result.toCreate())).containsExactly(List.of("10.0.1.1:-", "10.0.1.2:-"));
    assertThat(hintsOf(result.toUpdate()))
        .containsExactly(
            List.of("10.0.2.1:-"), List.of("10.0.0.3:-"), List.of("10.0.0.1:-", "10.0.0.2:-"));
    assertThat(result.unchanged()).isEmpty();
  }

  static Stream<ZoneCpuRatios> ratiosForEveryPath() {
    return Stream.of(
        WORKED_EXAMPLE_RATIOS,
        EVEN_TWO_ZONES,
        ZoneCpuRatios.insufficient(),
        ZoneCpuRatios.of(Map.of("zone-a", 0.1, "zone-b", 0.9)));
  }

  @ParameterizedTest
  @MethodSource("ratiosForEveryPath")
  void neverMutatesItsInputs(ZoneCpuRatios ratios) {
    var toCreate =
        List.of(
            slice("c1", ready("10.0.0.1", "zone-a"), ready("10.0.0.2", "zone-a")),
            slice("c2", ready("10.0.0.3", "zone-b"), unready("10.0.0.4", "zone-c")));
    var toUpdate =
        List.of(
            slice(
                "u1",
                hinted(ready("10.0.1.1", "zone-c"), "zone-a"),
                Fixtures.withHints(
                    ready("10.0.1.2", "zone-a"), Fixtures.zoneAndNodeHint("zone-a", "n"))));
    var unchanged =
        List.of(
            slice("k1", hinted(ready("10.0.2.1", "zone-a"), "zone-gone")),
            slice("k2", hinted(ready("10.0.2.2", "zone-c"), "zone-c")),
            slice("k3", ready("10.0.2.3", "zone-b")));
    var before =
        deepCopies(Stream.of(toCreate, toUpdate, unchanged).flatMap(List::stream).toList());

    var result = planner.plan(ratios, info(toCreate, toUpdate, unchanged), false);

    assertThat(Stream.of(toCreate, toUpdate, unchanged).flatMap(List::stream).toList())
        .isEqualTo(before);
    var inputs = Stream.of(toCreate, toUpdate, unchanged).flatMap(List::stream).toList();
    Stream.concat(result.toCreate().stream(), result.toUpdate().stream())
        .forEach(written -> assertThat(inputs).noneMatch(input -> input == written));
  }

  @Test
  void theSameInputAlwaysGivesTheSamePlan() {
    var ratios = ZoneCpuRatios.of(Map.of("zone-a", 0.2, "zone-b", 0.4, "zone-c", 0.4));
    var slices =
        info(
            List.of(
                slice(
                    "c1",
                    ready("10.0.0.1", "zone-a"),
                    ready("10.0.0.2", "zone-a"),
                    ready("10.0.0.3", "zone-a"),
                    ready("10.0.0.4", "zone-a"),
                    ready("10.0.0.5", "zone-b"),
                    ready("10.0.0.6", "zone-c"),
                    ready("10.0.0.7", "zone-b"),
                    ready("10.0.0.8", "zone-c"),
                    ready("10.0.0.9", "zone-a"),
                    ready("10.0.0.10", "zone-a"))),
            List.of(),
            List.of());

    var first = planner.plan(ratios, slices, false);

    // a holds 6 for a desired 2; b and c each need 2: ties between b and c go to b first.
    assertThat(hintsOf(first.toCreate().get(0)))
        .containsExactly(
            "10.0.0.1:zone-b",
            "10.0.0.2:zone-b",
            "10.0.0.3:zone-c",
            "10.0.0.4:zone-c",
            "10.0.0.5:zone-b",
            "10.0.0.6:zone-c",
            "10.0.0.7:zone-b",
            "10.0.0.8:zone-c",
            "10.0.0.9:zone-a",
            "10.0.0.10:zone-a");
    for (int i = 0; i < 5; i++) {
      assertThat(planner.plan(ratios, slices, false)).isEqualTo(first);
    }
  }

  private static List<EndpointSlice> deepCopies(List<EndpointSlice> slices) {
    return slices.stream().map(slice -> new EndpointSliceBuilder(slice).build()).toList();
  }
}
