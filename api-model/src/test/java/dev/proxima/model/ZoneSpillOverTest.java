package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ZoneSpillOverTest {
  private static final double EXACT = 1e-9;

  /** One row: zone to "share/endpoints" (share "-" for a zone absent from the demand). */
  record Row(Map<String, String> zones, double tolerance, Map<String, Double> expected) {}

  private static Row row(double tolerance, String zones, String expected) {
    var parsed = new LinkedHashMap<String, String>();
    for (var zone : zones.split(" ")) {
      var parts = zone.split("=");
      parsed.put(parts[0], parts[1]);
    }
    var fractions = new TreeMap<String, Double>();
    if (!expected.isEmpty()) {
      for (var zone : expected.split(" ")) {
        var parts = zone.split("=");
        fractions.put(parts[0], Double.parseDouble(parts[1]));
      }
    }
    return new Row(parsed, tolerance, fractions);
  }

  static Stream<Arguments> table() {
    return Stream.of(
        Arguments.of(
            "half the clients and 2 of 10 endpoints: zone a keeps 37.5%, the others all",
            row(1.25, "a=0.5/2 b=0.25/4 c=0.25/4", "a=0.375 b=1 c=1")),
        Arguments.of(
            "every zone has capacity for its demand: nothing spills",
            row(1.25, "a=0.4/4 b=0.3/3 c=0.3/3", "a=1 b=1 c=1")),
        Arguments.of(
            "a zone within tolerance but short of the mean keeps everything",
            row(1.25, "a=0.55/5 b=0.45/5", "a=1 b=1")),
        Arguments.of(
            "a zone with room for its own demand still spills when others' spread would crowd it",
            row(1.25, "a=0.5/2 b=0.3/3 c=0.2/5", "a=0.36 b=0.9 c=1")),
        Arguments.of(
            "tolerance 1 evens every endpoint out exactly",
            row(1.0, "a=0.5/2 b=0.5/8", "a=0.25 b=1")),
        Arguments.of(
            "a zone without endpoints spreads all its traffic (p 0), as it does today",
            row(1.25, "a=0.5/0 b=0.5/5", "a=0 b=1")),
        Arguments.of(
            "endpoints in a zone without demand only take spilled traffic",
            row(1.25, "a=0.5/1 b=0.5/1 c=-/8", "a=0.0625 b=0.0625")),
        Arguments.of(
            "a tolerance of 10 lets even a crowded zone keep everything",
            row(10, "a=0.5/2 b=0.25/4 c=0.25/4", "a=1 b=1 c=1")),
        Arguments.of(
            "one zone in the demand is unknown demand: everything stays local",
            row(1.25, "a=1/2 b=-/8", "")),
        Arguments.of(
            "no endpoints at all: unknown, everything stays local",
            row(1.25, "a=0.5/0 b=0.5/0", "")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void theFractionsAreTheLargestThatKeepEveryEndpointWithinTheTolerance(String name, Row row) {
    var endpoints = new TreeMap<String, Integer>();
    var ratios = new TreeMap<String, Double>();
    row.zones()
        .forEach(
            (zone, spec) -> {
              var parts = spec.split("/");
              endpoints.put(zone, Integer.parseInt(parts[1]));
              if (!parts[0].equals("-")) {
                ratios.put(zone, Double.parseDouble(parts[0]));
              }
            });
    var demand = ZoneDemand.ofRatios(ratios);

    var fractions = ZoneSpillOver.fractions(endpoints, demand, row.tolerance());

    assertThat(fractions.local().keySet()).isEqualTo(row.expected().keySet());
    row.expected()
        .forEach(
            (zone, p) ->
                assertThat(fractions.localFraction(zone)).as(zone).isCloseTo(p, within(EXACT)));
    if (fractions.known()) {
      assertWithinToleranceAndMaximal(endpoints, demand, row.tolerance(), fractions);
    } else {
      endpoints.keySet().forEach(zone -> assertThat(fractions.localFraction(zone)).isEqualTo(1.0));
    }
  }

  @Test
  void withoutSpillOverTheExampleZonesEndpointsTakeTwoAndAHalfTimesTheMean() {
    var endpoints = Map.of("a", 2, "b", 4, "c", 4);
    var demand = ZoneDemand.ofRatios(Map.of("a", 0.5, "b", 0.25, "c", 0.25));
    var allLocal =
        new ZoneSpillOver.Fractions(new TreeMap<>(Map.of("a", 1.0, "b", 1.0, "c", 1.0)), 0);

    var before = ZoneSpillOver.loadsOverMean(endpoints, demand, allLocal);
    var after =
        ZoneSpillOver.loadsOverMean(
            endpoints, demand, ZoneSpillOver.fractions(endpoints, demand, 1.25));

    assertThat(before.get("a")).isCloseTo(2.5, within(EXACT));
    assertThat(before.get("b")).isCloseTo(0.625, within(EXACT));
    assertThat(after.get("a")).isCloseTo(1.25, within(EXACT));
    assertThat(after.get("b")).isCloseTo(0.9375, within(EXACT));
  }

  @Test
  void aZoneMissingFromTheDemandKeepsTodaysBehaviour() {
    var fractions =
        ZoneSpillOver.fractions(
            Map.of("a", 2, "b", 8), ZoneDemand.ofRatios(Map.of("a", 0.5, "b", 0.5)), 1.25);

    assertThat(fractions.localFraction("gone")).isEqualTo(1.0);
    assertThat(fractions.localFraction("a")).isLessThan(1.0);
  }

  @Test
  void randomClustersStayWithinTheToleranceWithFractionsNoZoneCouldRaise() {
    var random = new Random(20261207);
    for (int round = 0; round < 2_000; round++) {
      int zones = 2 + random.nextInt(5);
      var endpoints = new TreeMap<String, Integer>();
      var ratios = new TreeMap<String, Double>();
      double total = 0;
      for (int z = 0; z < zones; z++) {
        double weight = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(16);
        ratios.put("z" + z, weight);
        total += weight;
        endpoints.put("z" + z, random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(12));
      }
      if (total == 0) {
        continue;
      }
      for (var zone : ratios.keySet()) {
        ratios.put(zone, ratios.get(zone) / total);
      }
      double tolerance = 1 + random.nextInt(200) / 100.0;
      var demand = ZoneDemand.ofRatios(ratios);
      var fractions = ZoneSpillOver.fractions(endpoints, demand, tolerance);
      if (fractions.known()) {
        assertWithinToleranceAndMaximal(endpoints, demand, tolerance, fractions);
      }
    }
  }

  /**
   * No endpoint above the tolerance; and a zone that keeps less than everything has its endpoints
   * exactly at it, so raising its fraction would push them over (the spill it saves lowers every
   * endpoint by less than the zone's own endpoints gain).
   */
  private static void assertWithinToleranceAndMaximal(
      Map<String, Integer> endpoints,
      ZoneDemand demand,
      double tolerance,
      ZoneSpillOver.Fractions fractions) {
    var loads = ZoneSpillOver.loadsOverMean(endpoints, demand, fractions);
    loads.forEach(
        (zone, load) ->
            assertThat(load).as("load of %s", zone).isLessThanOrEqualTo(tolerance + EXACT));
    fractions
        .local()
        .forEach(
            (zone, p) -> {
              boolean counts = endpoints.getOrDefault(zone, 0) > 0 && demand.shares().get(zone) > 0;
              if (counts && p < 1 - EXACT) {
                assertThat(loads.get(zone))
                    .as("load of spilling %s", zone)
                    .isCloseTo(tolerance, within(1e-6));
              }
            });
  }
}
