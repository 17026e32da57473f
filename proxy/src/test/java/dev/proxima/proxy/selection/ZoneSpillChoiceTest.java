package dev.proxima.proxy.selection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ZoneDemand;
import dev.proxima.model.ZoneSpillOverSetting;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** When a Service port spills on this node, and how much: the plan's decision, as a table. */
class ZoneSpillChoiceTest {
  private static final ZoneSpillOverSetting ON = ZoneSpillOverSetting.parse(spillOn("1.25"));
  private static final ZoneDemand HALVES =
      ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.5));

  private static Map<String, String> spillOn(String tolerance) {
    return Map.of(
        "proxima.dev/zone-spill-over", "true", "proxima.dev/zone-spill-over-tolerance", tolerance);
  }

  /** Two endpoints hinted for zone-a, eight for zone-b, as PreferSameZone writes them. */
  private static List<Endpoint> twoAndEight() {
    var endpoints = new ArrayList<Endpoint>();
    for (int i = 0; i < 10; i++) {
      var zone = i < 2 ? "zone-a" : "zone-b";
      endpoints.add(endpoint("10.180.0." + (10 + i), true, Set.of(zone), Set.of()));
    }
    return endpoints;
  }

  private static Endpoint endpoint(String ip, boolean ready, Set<String> zones, Set<String> nodes) {
    return new Endpoint(ip, 80, ready, ready, !ready, "node-x", false, zones, nodes, null);
  }

  private static ZoneSpillChoice choose(
      ServicePortFixtures.Svc svc, List<Endpoint> endpoints, String zone, ZoneDemand demand) {
    var port = svc.build();
    var selection = EndpointSelector.select(endpoints, port, "node-1", zone);
    return ZoneSpillChoice.choose(port, endpoints, selection, zone, demand);
  }

  private static ServicePortFixtures.Svc web(ZoneSpillOverSetting setting) {
    return ServicePortFixtures.service("shop/web", "10.96.0.10", 80).zoneSpillOver(setting);
  }

  static Stream<Arguments> cases() {
    var withoutZoneC = new ArrayList<>(twoAndEight());
    var hintedForC = new ArrayList<Endpoint>();
    for (var e : twoAndEight()) {
      hintedForC.add(endpoint(e.ip(), true, Set.of("zone-c"), Set.of()));
    }
    var nodeHinted = new ArrayList<Endpoint>();
    for (var e : twoAndEight()) {
      nodeHinted.add(endpoint(e.ip(), true, e.zoneHints(), Set.of("node-1")));
    }
    return Stream.of(
        Arguments.of(
            "a crowded zone keeps 37.5% in-zone",
            web(ON), twoAndEight(), "zone-a", HALVES, 375, true, "p=0.375"),
        Arguments.of(
            "a zone with room keeps everything (p=1)",
            web(ON),
            twoAndEight(),
            "zone-b",
            HALVES,
            1000,
            true,
            "p=1"),
        Arguments.of(
            "unknown demand routes as today",
            web(ON),
            twoAndEight(),
            "zone-a",
            ZoneDemand.unknown(),
            1000,
            false,
            "zone demand unknown"),
        Arguments.of(
            "a zone missing from the demand keeps everything",
            web(ON),
            hintedForC,
            "zone-c",
            HALVES,
            1000,
            true,
            "this node's zone is not in the demand"),
        Arguments.of(
            "a zone without endpoints already spreads: hints are not followed here",
            web(ON),
            withoutZoneC,
            "zone-c",
            HALVES,
            1000,
            false,
            "no zone hints"),
        Arguments.of(
            "PreferSameNode is not spilled",
            web(ON),
            nodeHinted,
            "zone-a",
            HALVES,
            1000,
            false,
            "PreferSameNode is not spilled"),
        Arguments.of(
            "a Local-policy list never spills",
            web(ON).internalLocal(),
            twoAndEight(),
            "zone-a",
            HALVES,
            1000,
            false,
            "no zone hints"),
        Arguments.of(
            "an invalid annotation leaves it off and says why",
            web(ZoneSpillOverSetting.parse(Map.of("proxima.dev/zone-spill-over", "yes"))),
            twoAndEight(),
            "zone-a",
            HALVES,
            1000,
            false,
            "invalid annotation"),
        Arguments.of(
            "no annotation is off",
            web(null),
            twoAndEight(),
            "zone-a",
            HALVES,
            1000,
            false,
            "off"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theFractionEachCaseKeepsAndWhy(
      String name,
      ServicePortFixtures.Svc svc,
      List<Endpoint> endpoints,
      String zone,
      ZoneDemand demand,
      int keepPerMille,
      boolean active,
      String why) {
    var choice = choose(svc, endpoints, zone, demand);

    assertThat(choice.spill().keepPerMille()).isEqualTo(keepPerMille);
    assertThat(choice.spill().spills()).isEqualTo(keepPerMille < 1000);
    assertThat(choice.active()).isEqualTo(active);
    assertThat(choice.why()).contains(why);
  }

  @Test
  void theSpreadListHoldsEveryReadyEndpointAndNoOther() {
    var endpoints = new ArrayList<>(twoAndEight());
    endpoints.add(endpoint("10.180.0.99", false, Set.of("zone-b"), Set.of()));

    var choice = choose(web(ON), endpoints, "zone-a", HALVES);

    assertThat(choice.spill().spread()).hasSize(10).noneMatch(e -> e.ip().equals("10.180.0.99"));
    assertThat(choice.why())
        .contains("zone zone-a")
        .contains("endpoints per zone {zone-a=2, zone-b=8}")
        .contains("tolerance 1.25");
  }

  @Test
  void theFractionIsQuantizedToThousandthsSoSmallWobblesChangeNoRule() {
    assertThat(ZoneSpillChoice.perMille(0.37501)).isEqualTo(375);
    assertThat(ZoneSpillChoice.perMille(0.37549)).isEqualTo(375);
    assertThat(ZoneSpillChoice.perMille(0.9996)).isEqualTo(1000);
    assertThat(ZoneSpillChoice.perMille(0)).isZero();
    assertThat(ZoneSpillChoice.perMille(Double.NaN)).isZero();
  }

  @Test
  void aFractionOfZeroSendsEveryConnectionToTheSpreadList() {
    var spill = new ZoneSpill(0, twoAndEight());

    assertThat(spill.spills()).isTrue();
    assertThat(ZoneSpill.NONE.spills()).isFalse();
  }
}
