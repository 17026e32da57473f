package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.PodInterface;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Named inputs shared by the golden tests and the validation against the real tools. */
final class IptablesCases {
  private IptablesCases() {}

  record Case(String name, FamilySettings config, List<ServicePortRules> services) {
    IptablesRendering rendering() {
      return IptablesRenderer.render(config, services);
    }

    String buffer() {
      return rendering().filterAndNat();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The same Service port, counted per locality ({@code proxima.dev/observe-locality}). */
  static ServicePortRules counted(ServicePortRules rules) {
    return new ServicePortRules(
        rules.port().withObserveLocality(true),
        rules.clusterEndpoints(),
        rules.localEndpoints(),
        rules.hasAnyEndpoints());
  }

  static FamilySettings v4() {
    return FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  }

  static FamilySettings v6() {
    return FamilySettings.of(IpFamily.IPV6, List.of("fd00:10::/64"));
  }

  /** Keeps 37.5% on the two in-zone endpoints, spreads the rest over all four. */
  static ServicePortRules zoneSpillOver(Duration sticky) {
    var svc = service("ns4/spill", "172.30.0.45", 80).portName("p80").nodePort(30045);
    if (sticky != null) {
      svc.sticky(sticky);
    }
    return new ServicePortRules(
        svc.build(),
        List.of(remote("10.180.0.4", 80), remote("10.180.0.5", 80)),
        null,
        true,
        new ZoneSpill(
            375,
            List.of(
                remote("10.180.0.4", 80),
                remote("10.180.0.5", 80),
                remote("10.180.1.4", 80),
                remote("10.180.2.4", 80))));
  }

  static ServicePortRules twoEndpoints() {
    return service("ns4/svc4", "172.30.0.44", 80)
        .portName("p80")
        .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80));
  }

  static ServicePortRules threeEndpoints() {
    return service("ns3/svc3", "172.30.0.43", 80)
        .portName("p80")
        .cluster(remote("10.180.0.1", 80), remote("10.180.0.2", 80), remote("10.180.0.3", 80));
  }

  static ServicePortRules noEndpoints() {
    return service("ns5/svc5", "172.30.0.45", 80).portName("p80").cluster();
  }

  static ServicePortRules internalLocalNoneLocal() {
    return service("ns6/svc6", "172.30.0.46", 80)
        .portName("p80")
        .internalLocal()
        .rules(List.of(), List.of(), true);
  }

  static ServicePortRules externalLocalLoadBalancer() {
    Endpoint a = local("10.180.0.7", 8080);
    Endpoint b = remote("10.180.1.7", 8080);
    return service("ns7/svc7", "172.30.0.47", 80)
        .portName("http")
        .nodePort(30007)
        .loadBalancerIps("1.2.3.4")
        .sourceRanges("203.0.113.0/24", "198.51.100.0/24")
        .externalLocal()
        .healthCheckNodePort(30107)
        .rules(List.of(a, b), List.of(a), true);
  }

  static ServicePortRules nodePort() {
    return service("ns8/svc8", "172.30.0.48", 53)
        .portName("dns")
        .protocol(Protocol.UDP)
        .nodePort(30053)
        .externalIps("192.0.2.8")
        .cluster(remote("10.180.0.8", 5353));
  }

  static ServicePortRules sticky() {
    return service("ns9/svc9", "172.30.0.49", 443)
        .portName("https")
        .sticky(Duration.ofSeconds(10800))
        .cluster(remote("10.180.0.9", 8443), remote("10.180.0.10", 8443));
  }

  static ServicePortRules sctp() {
    return service("ns10/sctp", "172.30.0.50", 9999)
        .protocol(Protocol.SCTP)
        .cluster(remote("10.180.0.11", 9999));
  }

  static ServicePortRules externalLocalNoLocalEndpoints() {
    return service("ns11/svc11", "172.30.0.51", 80)
        .nodePort(30011)
        .externalIps("192.0.2.11")
        .loadBalancerIps("1.2.3.11")
        .externalLocal()
        .rules(List.of(remote("10.180.0.12", 80)), List.of(), true);
  }

  static ServicePortRules externalNoEndpoints() {
    return service("ns12/svc12", "172.30.0.52", 80)
        .nodePort(30012)
        .externalIps("192.0.2.12")
        .loadBalancerIps("1.2.3.12")
        .rules(List.of(), null, false);
  }

  static ServicePortRules v6Service() {
    return service("ns6/v6", "fd00:172::1", 80)
        .portName("p80")
        .nodePort(30600)
        .loadBalancerIps("2001:db8::10")
        .sourceRanges("2001:db8:1::/48")
        .cluster(remote("fd00:10::5", 8080), remote("fd00:10::6", 8080));
  }

  static ServicePortRules v6NoEndpoints() {
    return service("ns6/v6none", "fd00:172::2", 80).cluster();
  }

  static List<ServicePortRules> manyEndpoints(int count) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      endpoints.add(remote("10.200." + (i / 250) + "." + (i % 250 + 1), 80));
    }
    return List.of(
        service("big/svc", "172.30.1.1", 80).portName("p80").rules(endpoints, null, true));
  }

  static List<Case> all() {
    FamilySettings v4 = v4();
    FamilySettings v6 = v6();
    return List.of(
        new Case("v4 two endpoints", v4, List.of(twoEndpoints())),
        new Case("v4 zone spill-over", v4, List.of(zoneSpillOver(null))),
        new Case(
            "v4 zone spill-over with affinity", v4, List.of(zoneSpillOver(Duration.ofSeconds(60)))),
        new Case("v4 three endpoints", v4, List.of(threeEndpoints())),
        new Case("v4 no endpoints", v4, List.of(noEndpoints())),
        new Case("v4 iTP Local none local", v4, List.of(internalLocalNoneLocal())),
        new Case("v4 eTP Local LB source ranges", v4, List.of(externalLocalLoadBalancer())),
        new Case("v4 NodePort", v4, List.of(nodePort())),
        new Case(
            "v4 NodePort on addresses",
            v4.withNodePortAddresses(List.of("192.168.1.10", "192.168.2.10")),
            List.of(nodePort())),
        new Case(
            "v4 NodePort on no address (nodePortAddresses matched nothing)",
            v4.withNodePortsListed(true),
            List.of(nodePort())),
        new Case(
            "v4 pods by bridge",
            v4.withPodInterface(PodInterface.bridge("cbr0")),
            List.of(twoEndpoints(), externalLocalLoadBalancer())),
        new Case(
            "v4 pods by interface name prefix",
            v4.withPodInterface(PodInterface.namePrefix("veth")),
            List.of(twoEndpoints(), externalLocalLoadBalancer())),
        new Case("v4 session affinity", v4, List.of(sticky())),
        new Case("v4 sctp", v4, List.of(sctp())),
        new Case("v4 masqueradeAll", v4.withMasqueradeAll(true), List.of(twoEndpoints())),
        new Case(
            "v4 two cluster CIDRs",
            FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/16", "10.1.0.0/16")),
            List.of(twoEndpoints(), externalLocalLoadBalancer())),
        new Case("v4 eTP Local none local", v4, List.of(externalLocalNoLocalEndpoints())),
        new Case("v4 external without endpoints", v4, List.of(externalNoEndpoints())),
        new Case("v4 large", v4, manyEndpoints(1001)),
        new Case(
            "v4 everything",
            v4,
            List.of(
                twoEndpoints(),
                threeEndpoints(),
                noEndpoints(),
                internalLocalNoneLocal(),
                externalLocalLoadBalancer(),
                nodePort(),
                sticky(),
                sctp(),
                externalLocalNoLocalEndpoints(),
                externalNoEndpoints())),
        new Case("v6 service", v6, List.of(v6Service(), v6NoEndpoints())),
        new Case(
            "v6 masqueradeAll on addresses",
            v6.withMasqueradeAll(true).withNodePortAddresses(List.of("2001:db8::1")),
            List.of(v6Service())));
  }
}
