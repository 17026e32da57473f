package dev.proxima.proxy.plan;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.selection.EndpointSelector;
import dev.proxima.proxy.selection.ZoneSpillChoice;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PlanStoreTest {
  private static final String NODE = "node-a";

  private static final ServicePort WEB = service("shop/web", "10.96.0.10", 80).build();
  private static final ServicePort WEB_MOVED = service("shop/web", "10.96.0.10", 81).build();
  private static final ServicePort CLUSTER = service("zz/cluster", "10.96.0.20", 80).build();
  private static final ServicePort EXT =
      service("aa/ext", "10.96.0.30", 80).externalIps("10.96.0.20").build();
  private static final ServicePort DNS =
      service("kube/dns", "10.96.0.53", 53).protocol(Protocol.UDP).build();

  private final PlanStore store = new PlanStore(IpFamily.IPV4, NODE);

  /** A port's claim as {@link NodePlanner#planClaims} makes it, with one remote endpoint. */
  private static NodePlanner.PlannedPort claim(ServicePort port) {
    var endpoints = List.of(remote("10.0.0.1", 8080));
    var selection = EndpointSelector.select(endpoints, port, NODE, null);
    var fallback =
        TopologyFallback.classify(
            port.trafficDistribution(), selection.topology(), endpoints, NODE, null);
    return new NodePlanner.PlannedPort(
        port, endpoints, selection, fallback, ZoneDemand.unknown(), ZoneSpillChoice.OFF);
  }

  private static List<NodePlanner.PlannedPort> claims(ServicePort... ports) {
    return Stream.of(ports).map(PlanStoreTest::claim).toList();
  }

  /** Each changed port as {@code ns/name:port -> gone} or its programmed external IPs. */
  private static List<String> described(PlanStore.Changes changes) {
    return changes.ports().entrySet().stream()
        .map(
            e ->
                e.getKey().service()
                    + " -> "
                    + (e.getValue() == null
                        ? "gone"
                        : "port "
                            + e.getValue().port().port()
                            + " externalIPs "
                            + e.getValue().port().externalIps()))
        .sorted()
        .toList();
  }

  private static Map<ObjectKey, List<NodePlanner.PlannedPort>> change(
      ServicePort service, ServicePort... ports) {
    var changed = new LinkedHashMap<ObjectKey, List<NodePlanner.PlannedPort>>();
    changed.put(service.name().service(), claims(ports));
    return changed;
  }

  static Stream<Arguments> partialUpdates() {
    return Stream.of(
        Arguments.of(
            "a Service whose claims plan as before renders nothing again",
            List.of(WEB),
            change(WEB, WEB),
            List.of(),
            false),
        Arguments.of(
            "a new Service's ports are rendered",
            List.of(),
            change(WEB, WEB),
            List.of("shop/web -> port 80 externalIPs []"),
            false),
        Arguments.of(
            "a changed Service's ports are rendered as they are now",
            List.of(WEB),
            change(WEB, WEB_MOVED),
            List.of("shop/web -> port 81 externalIPs []"),
            false),
        Arguments.of(
            "a Service that goes takes its ports with it",
            List.of(WEB),
            change(WEB),
            List.of("shop/web -> gone"),
            false),
        Arguments.of(
            "a Service that takes an address from another renders the loser again too",
            List.of(EXT),
            change(CLUSTER, CLUSTER),
            List.of("aa/ext -> port 80 externalIPs []", "zz/cluster -> port 80 externalIPs []"),
            false),
        Arguments.of(
            "when the holder of an address goes the other claimant gets it back",
            List.of(EXT, CLUSTER),
            change(CLUSTER),
            List.of("aa/ext -> port 80 externalIPs [10.96.0.20]", "zz/cluster -> gone"),
            false),
        Arguments.of(
            "a UDP port that goes touches UDP flows",
            List.of(DNS, WEB),
            change(DNS),
            List.of("kube/dns -> gone"),
            true),
        Arguments.of(
            "a UDP port that comes touches UDP flows",
            List.of(WEB),
            change(DNS, DNS),
            List.of("kube/dns -> port 53 externalIPs []"),
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("partialUpdates")
  void aPartialUpdateNamesThePortsToRenderAgain(
      String name,
      List<ServicePort> before,
      Map<ObjectKey, List<NodePlanner.PlannedPort>> changed,
      List<String> expected,
      boolean touchedUdp) {
    store.replaceAll(claims(before.toArray(ServicePort[]::new)), null);

    var changes = store.update(changed, null);

    assertThat(described(changes)).containsExactlyElementsOf(expected);
    assertThat(changes.touchedUdp()).isEqualTo(touchedUdp);
  }

  @Test
  void aFullReplacementProgramsEveryServiceInNameOrderWithAddressesGivenToTheirOwners() {
    var all = store.replaceAll(claims(EXT, WEB, CLUSTER), "zone-a");

    assertThat(all)
        .extracting(p -> p.port().name().service().toString())
        .containsExactly("aa/ext", "shop/web", "zz/cluster");
    assertThat(all.get(0).port().externalIps()).isEmpty();
    assertThat(store.serviceCount()).isEqualTo(3);
    assertThat(store.collisions())
        .extracting(c -> c.winner().service() + ">" + c.loser().service())
        .containsExactly("zz/cluster>aa/ext");
  }

  @Test
  void aFullReplacementForgetsWhatWasThereBefore() {
    store.replaceAll(claims(EXT, CLUSTER), null);

    store.replaceAll(claims(WEB), null);

    assertThat(store.allPorts()).extracting(p -> p.port()).containsExactly(WEB);
    assertThat(store.collisions()).isEmpty();
  }

  @Test
  void theCurrentPlanCarriesTheFamilyNodeZonePortsAndCollisions() {
    store.replaceAll(claims(EXT, CLUSTER), null);

    var plan = store.current("zone-a");

    assertThat(plan.family()).isEqualTo(IpFamily.IPV4);
    assertThat(plan.nodeName()).isEqualTo(NODE);
    assertThat(plan.nodeZone()).isEqualTo("zone-a");
    assertThat(plan.ports()).hasSize(2);
    assertThat(plan.collisions()).hasSize(1);
  }

  @Test
  void aPortIsFoundByNameOnlyWhileItIsProgrammed() {
    store.replaceAll(claims(WEB), null);
    assertThat(store.port(WEB.name())).map(p -> p.port()).contains(WEB);

    store.update(change(WEB), null);

    assertThat(store.port(WEB.name())).isEmpty();
    assertThat(store.serviceCount()).isZero();
  }

  @Test
  void aServiceThatOwnsEveryAddressSharesItsClaimsAsProgrammed() {
    var claims = claims(WEB);

    var all = store.replaceAll(claims, null);

    assertThat(all.get(0)).isSameAs(claims.get(0));
  }
}
