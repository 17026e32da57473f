package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.explain.LiveExplain;
import dev.proxima.proxy.explain.LiveExplainReport;
import dev.proxima.proxy.explain.ObservedLocality;
import dev.proxima.proxy.explain.SyncState;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** explain prints each opted-in port's zone spill-over on this node, and why. */
class ZoneSpillExplainTest {
  private static final ZoneDemand HALVES =
      ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.5));

  private static Service service(String name, String spillOver) {
    var annotations =
        spillOver == null
            ? Map.<String, String>of()
            : Map.of("proxima.dev/zone-spill-over", spillOver);
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withClusterIP(name.equals("web") ? "10.96.0.10" : "10.96.0.11")
        .withTrafficDistribution("PreferSameZone")
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static EndpointSlice twoAndEight(String service) {
    var slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName(service + "-1")
            .withLabels(Map.of(Labels.SERVICE_NAME, service))
            .endMetadata()
            .withAddressType("IPv4")
            .addNewPort()
            .withName("http")
            .withPort(8080)
            .withProtocol("TCP")
            .endPort();
    for (int i = 0; i < 10; i++) {
      var zone = i < 2 ? "zone-a" : "zone-b";
      slice.addToEndpoints(
          new EndpointBuilder()
              .withAddresses("10.244." + (service.equals("web") ? 0 : 1) + "." + (10 + i))
              .withZone(zone)
              .withNewHints()
              .withForZones(new ForZone(zone))
              .endHints()
              .build());
    }
    return slice.build();
  }

  private static NodePlanner.FamilyPlan plan(ZoneDemand demand) {
    var node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("node-a")
            .withLabels(Map.of(Labels.ZONE, "zone-a"))
            .endMetadata()
            .build();
    return NodePlanner.planClaims(
        IpFamily.IPV4,
        "node-a",
        node,
        null,
        List.of(service("web", "true"), service("db", null), service("typo", "yes")),
        List.of(twoAndEight("web"), twoAndEight("db"), twoAndEight("typo")),
        AddressPolicy.NONE,
        demand);
  }

  @Test
  void textShowsTheFractionAndItsInputsForAnOptedInPortAndNothingForOthers() {
    var text = ExplainReport.text(List.of(plan(HALVES)));

    assertThat(text)
        .contains(
            "spill-over:     p=0.375, the rest spread over 10 ready endpoints (zone zone-a;"
                + " endpoints per zone {zone-a=2, zone-b=8}; demand {zone-a=0.500, zone-b=0.500};"
                + " tolerance 1.25)")
        .contains("spill-over:     invalid annotation: proxima.dev/zone-spill-over=\"yes\"");
    assertThat(text.split("spill-over:", -1)).as("web and typo only").hasSize(3);
  }

  @Test
  void textSaysWhyThereIsNoFractionWhenTheDemandIsUnknown() {
    assertThat(ExplainReport.text(List.of(plan(ZoneDemand.unknown()))))
        .contains("spill-over:     zone demand unknown (ConfigMap proxima-zone-demand");
  }

  @Test
  void explainLiveShowsTheMeasuredInZoneShareBesideTheFraction() {
    var web =
        plan(HALVES).ports().stream()
            .map(planned -> planned.port().name())
            .filter(port -> port.service().name().equals("web"))
            .findFirst()
            .orElseThrow();
    var counting =
        new ObservedLocality(null, Map.of(web, new ObservedLocality.Counts(0, 40, 60, 0)));
    var live =
        LiveExplain.of(
            "node-a",
            Instant.parse("2026-12-07T21:00:00Z"),
            true,
            new LiveExplain.PendingChanges(0, 0),
            List.of(SyncState.notSynced(IpFamily.IPV4)),
            List.of(plan(HALVES)),
            null,
            LiveExplain.MAX_SERVICE_PORTS,
            counting);

    assertThat(LiveExplainReport.text(live))
        .contains(
            "(0% kept on the node, 40% in the zone) since the proxy began counting it; zone"
                + " spill-over keeps 37.5% in-zone");
  }

  @Test
  void jsonCarriesTheFractionForOptedInPortsOnly() {
    var rows = ExplainReport.rows(plan(HALVES));

    @SuppressWarnings("unchecked")
    var web =
        (Map<String, Object>)
            rows.stream()
                .filter(r -> r.get("service").equals("shop/web"))
                .findFirst()
                .orElseThrow()
                .get("zoneSpillOver");
    assertThat(web).containsEntry("active", true);
    assertThat(web.get("keep").toString()).isEqualTo("0.375");
    assertThat(
            rows.stream().filter(r -> r.get("service").equals("shop/db")).findFirst().orElseThrow())
        .doesNotContainKey("zoneSpillOver");
  }
}
