package dev.proxima.controller.conditions;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static dev.proxima.controller.testing.Fixtures.unready;
import static dev.proxima.controller.testing.Fixtures.withHints;
import static dev.proxima.controller.testing.Fixtures.zoneHint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.model.Annotations;
import dev.proxima.model.ServiceConditions;
import dev.proxima.model.ZoneDemand;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZoneSpillOverConditionTest {
  private static final ZoneDemand HALF_IN_A =
      ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.25, "zone-c", 0.25));
  private static final Map<String, String> ON = Map.of(Annotations.ZONE_SPILL_OVER, "true");

  /** Zone a: 2 endpoints, b and c: 4 each, as stored (no hints yet: the plan adds them). */
  private static List<EndpointSlice> twoFourFour() {
    var endpoints = new ArrayList<Endpoint>();
    int ip = 1;
    for (var zone : Map.of("zone-a", 2, "zone-b", 4, "zone-c", 4).entrySet()) {
      for (int i = 0; i < zone.getValue(); i++) {
        endpoints.add(ready("10.0.0." + ip++, zone.getKey(), "node-" + zone.getKey()));
      }
    }
    return List.of(slice("svc-1", "svc", endpoints.toArray(Endpoint[]::new)));
  }

  private static String summary(Service service, List<EndpointSlice> slices, ZoneDemand demand) {
    var plan = new HintPlanner().plan(service, slices);
    var outcome = ZoneSpillOverCondition.desired(service, plan, slices, demand);
    return outcome.conditions().stream()
        .map(c -> c.getType() + " " + c.getStatus() + " " + c.getReason() + ": " + c.getMessage())
        .findFirst()
        .orElse("none");
  }

  @Test
  void aCrowdedZoneSpillsAndTheConditionSaysHowMuchEachZoneKeeps() {
    var summary = summary(service("svc", "PreferSameZone", ON), twoFourFour(), HALF_IN_A);

    assertThat(summary)
        .startsWith(ServiceConditions.ZONE_SPILL_OVER + " True Spilling: ")
        .contains("zone-a 37.5%, zone-b 100%, zone-c 100%")
        .contains("no endpoint is expected above 1.25× the mean (without spill-over: 2.5×)");
  }

  @Test
  void theToleranceAnnotationIsHonoured() {
    var annotations = new HashMap<>(ON);
    annotations.put(Annotations.ZONE_SPILL_OVER_TOLERANCE, "3");

    assertThat(summary(service("svc", "PreferSameZone", annotations), twoFourFour(), HALF_IN_A))
        .startsWith(ServiceConditions.ZONE_SPILL_OVER + " True WithinTolerance: ")
        .contains("zone-a 100%, zone-b 100%, zone-c 100%")
        .contains("no endpoint is expected above 2.5× the mean, within the tolerance of 3×");
  }

  @Test
  void endpointsSpreadEvenlyOverTheDemandSpillNothing() {
    var even = ZoneDemand.ofRatios(Map.of("zone-a", 0.2, "zone-b", 0.4, "zone-c", 0.4));

    assertThat(summary(service("svc", "PreferSameZone", ON), twoFourFour(), even))
        .contains("True WithinTolerance");
  }

  @Test
  void aZoneWithoutEndpointsIsShownSpreadingEverything() {
    var withD =
        ZoneDemand.ofRatios(Map.of("zone-a", 0.2, "zone-b", 0.3, "zone-c", 0.3, "zone-d", 0.2));

    assertThat(summary(service("svc", "PreferSameZone", ON), twoFourFour(), withD))
        .contains("zone-d none (no endpoints)");
  }

  @Test
  void unknownDemandNoZoneHintsAndPreferSameNodeSayWhyItDoesNotApply() {
    assertThat(summary(service("svc", "PreferSameZone", ON), twoFourFour(), ZoneDemand.unknown()))
        .contains("False DemandUnknown");
    assertThat(summary(service("svc", null, ON), twoFourFour(), HALF_IN_A))
        .contains("False NoZoneHints")
        .contains("needs zone hints");
    assertThat(summary(service("svc", "PreferSameNode", ON), twoFourFour(), HALF_IN_A))
        .contains("False NoZoneHints");
  }

  @Test
  void aReadyEndpointWithoutAZoneHintTurnsHintsOffForProxiesSoSpillOverDoesNotApply() {
    // Auto without Node information removes every hint.
    var auto = new HashMap<>(ON);
    auto.put(Annotations.TOPOLOGY_MODE, "Auto");

    assertThat(summary(service("svc", null, auto), twoFourFour(), HALF_IN_A))
        .contains("False NoZoneHints")
        .contains("No ready endpoint carries a zone hint");
  }

  @Test
  void onlyReadyEndpointsOfOneAddressTypeAreCounted() {
    var slices =
        List.of(
            slice(
                "svc-1",
                "svc",
                withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-a")),
                withHints(ready("10.0.0.2", "zone-b", "n2"), zoneHint("zone-b")),
                unready("10.0.0.3", "zone-b", "n2")),
            dev.proxima.controller.testing.Fixtures.sliceOfType(
                "svc-2",
                "svc",
                "IPv6",
                withHints(ready("fd00::1", "zone-b", "n2"), zoneHint("zone-b"))));

    assertThat(ZoneSpillOverCondition.EndpointsPerZone.count(slices, List.of()))
        .isEqualTo(Map.of("zone-a", 1, "zone-b", 1));
  }

  @Test
  void anInvalidAnnotationTurnsTheFeatureOffWithAConditionAndAWarningNamingIt() {
    var service =
        service(
            "svc",
            "PreferSameZone",
            Map.of(
                Annotations.ZONE_SPILL_OVER, "true",
                Annotations.ZONE_SPILL_OVER_TOLERANCE, "0.5"));
    var slices = twoFourFour();
    var plan = new HintPlanner().plan(service, slices);

    var outcome = ZoneSpillOverCondition.desired(service, plan, slices, HALF_IN_A);

    assertThat(outcome.conditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("InvalidAnnotation");
              assertThat(c.getMessage())
                  .contains("proxima.dev/zone-spill-over-tolerance=\"0.5\"")
                  .contains("zone spill-over is off");
            });
    assertThat(outcome.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo(EventReasons.INVALID_ZONE_SPILL_OVER);
              assertThat(e.message()).startsWith("Service test/svc: ");
            });
  }

  @Test
  void withoutTheAnnotationThereIsNoCondition() {
    assertThat(summary(service("svc", "PreferSameZone"), twoFourFour(), HALF_IN_A))
        .isEqualTo("none");
    assertThat(
            summary(
                service("svc", "PreferSameZone", Map.of(Annotations.ZONE_SPILL_OVER, "false")),
                twoFourFour(),
                HALF_IN_A))
        .isEqualTo("none");
  }
}
