package dev.proxima.proxy.route;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.testing.ServicePortFixtures.Svc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RouteDecisionTest {
  private static final Endpoint THERE = remote("10.2.0.1", 8080);
  private static final Endpoint HERE = local("10.1.0.1", 8080);

  private final List<String> warnings = new ArrayList<>();
  private final RouteDecision v4 = new RouteDecision(IpFamily.IPV4, warnings);

  static Stream<Arguments> verdicts() {
    return Stream.of(
        // policy Local?, any endpoints?, cluster, local, verdict
        Arguments.of(false, false, List.of(), List.of(), Verdict.REJECT),
        Arguments.of(true, false, List.of(), List.of(), Verdict.REJECT),
        Arguments.of(false, true, List.of(THERE), List.of(), Verdict.CLUSTER_ENDPOINTS),
        Arguments.of(true, true, List.of(THERE), List.of(), Verdict.DROP),
        Arguments.of(true, true, List.of(THERE, HERE), List.of(HERE), Verdict.LOCAL_ENDPOINTS),
        // Endpoints somewhere, none in the Cluster list: nothing to DNAT to, so it drops.
        Arguments.of(false, true, List.of(), List.of(HERE), Verdict.DROP));
  }

  @ParameterizedTest(name = "local={0} any={1} cluster={2} local={3} -> {4}")
  @MethodSource("verdicts")
  void rejectsWithoutEndpointsDropsWhenThePolicyLeavesNoneAndElseDispatchesToThePolicysList(
      boolean localPolicy,
      boolean any,
      List<Endpoint> cluster,
      List<Endpoint> localList,
      Verdict expected) {
    assertThat(RouteDecision.verdict(any, localPolicy, cluster, localList)).isEqualTo(expected);
  }

  @Test
  void internalAndExternalTrafficFollowTheirOwnPolicies() {
    var route =
        withOneEndpoint(service("ns/web", "172.30.0.1", 80).nodePort(30080).externalLocal());

    assertThat(route.internal()).isEqualTo(Verdict.CLUSTER_ENDPOINTS);
    assertThat(route.external()).isEqualTo(Verdict.DROP);
    assertThat(route.externalLocal()).isTrue();
    assertThat(route.externalLocal()).isTrue();
  }

  @Test
  void externalTrafficPolicyLocalNeedsAWayInFromOutside() {
    var route = withOneEndpoint(service("ns/web", "172.30.0.1", 80).externalLocal());

    assertThat(route.externalLocal()).isFalse();
    assertThat(route.externalLocal()).isFalse();
    assertThat(route.external()).isEqualTo(Verdict.CLUSTER_ENDPOINTS);
  }

  @Test
  void aFirewallWhoseRangesNobodyCanReadLetsNobodyThrough() {
    var route = loadBalancerAllowing("not-a-cidr", "fd00::/64");

    assertThat(route.firewall()).isTrue();
    assertThat(route.allowedSources()).isEmpty();
    assertThat(warnings).hasSize(2).allSatisfy(w -> assertThat(w).contains("ns/lb", "ignored"));
  }

  @Test
  void sourceRangesAreReadAsTheApiServerReadsThemAndNestedOnesFold() {
    var route = loadBalancerAllowing("010.0.0.0/08", "10.1.0.0/16", "192.0.2.7/24\u00a0");

    assertThat(route.allowedSources())
        .extracting(Object::toString)
        .containsExactly("10.0.0.0/8", "192.0.2.0/24");
    assertThat(warnings).isEmpty();
  }

  @Test
  void onlyLoadBalancerIpsAreFirewalled() {
    var route =
        withOneEndpoint(
            service("ns/ext", "172.30.0.4", 80)
                .externalIps("192.0.2.4")
                .sourceRanges("10.0.0.0/8"));

    assertThat(route.firewall()).isFalse();
  }

  @Test
  void oneEndpointSpelledThreeWaysIsOneEndpoint() {
    var v6 = new RouteDecision(IpFamily.IPV6, warnings);
    var route =
        v6.decide(
            service("ns/web", "fd00:172::1", 80).build(),
            List.of(remote("fd00::1", 80), remote("fd00:0::1", 80), remote("FD00::1", 80)),
            List.of(),
            true,
            ZoneSpill.NONE);

    assertThat(route.cluster()).extracting(Endpoint::address).containsExactly("[fd00::1]:80");
  }

  @Test
  void valuesOfTheOtherFamilyOrOutOfRangeAreLeftOutByName() {
    var route =
        decide(
            service("ns/mixed", "fd00::9", 80).externalIps("2001:db8::1", "192.0.2.60"),
            List.of(remote("fd00::1", 80), remote("10.2.0.2", 0), THERE),
            List.of(),
            true);

    assertThat(route.clusterIp()).isNull();
    assertThat(route.externalIps()).containsExactly("192.0.2.60");
    assertThat(route.cluster()).containsExactly(THERE);
    assertThat(warnings)
        .containsExactly(
            "ns/mixed: clusterIP fd00::9 is not an IPv4 address; skipped",
            "ns/mixed: externalIP 2001:db8::1 is not an IPv4 address; skipped",
            "ns/mixed: endpoint [fd00::1]:80 is not an IPv4 address",
            "ns/mixed: endpoint 10.2.0.2:0 has an out-of-range port");
  }

  @Test
  void aPortOutOfRangeIsSkippedWhole() {
    assertThat(withOneEndpoint(service("ns/web", "172.30.0.1", 70000))).isNull();
    assertThat(warnings).singleElement().asString().contains("ns/web", "70000");
  }

  @Test
  void affinityIsCountedInWholeSecondsRoundedUpAndAtLeastOne() {
    assertThat(RouteDecision.seconds(Duration.ofSeconds(10800))).isEqualTo(10800);
    assertThat(RouteDecision.seconds(Duration.ofMillis(1500))).isEqualTo(2);
    assertThat(RouteDecision.seconds(Duration.ZERO)).isEqualTo(1);
    assertThat(RouteDecision.seconds(Duration.ofSeconds(Long.MAX_VALUE / 2)))
        .isEqualTo(Integer.MAX_VALUE);
    var route = withOneEndpoint(service("ns/web", "172.30.0.1", 80).sticky(Duration.ofSeconds(30)));
    assertThat(route.sticky()).isTrue();
    assertThat(route.affinitySeconds()).isEqualTo(30);
  }

  @Test
  void withoutEndpointsAnywhereNoListIsKept() {
    var route = decide(service("ns/web", "172.30.0.1", 80), List.of(THERE), List.of(), false);

    assertThat(route.cluster()).isEmpty();
    assertThat(route.internal()).isEqualTo(Verdict.REJECT);
  }

  private PortRoute loadBalancerAllowing(String... sourceRanges) {
    return withOneEndpoint(
        service("ns/lb", "172.30.0.3", 80)
            .loadBalancerIps("203.0.113.3")
            .sourceRanges(sourceRanges));
  }

  private PortRoute withOneEndpoint(Svc svc) {
    return decide(svc, List.of(THERE), List.of(), true);
  }

  private PortRoute decide(Svc svc, List<Endpoint> cluster, List<Endpoint> localList, boolean any) {
    ServicePort port = svc.build();
    return v4.decide(port, cluster, localList, any, ZoneSpill.NONE);
  }
}
