package dev.proxima.proxy.render.nft;

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
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The rulesets the tests render: the golden tests assert their lines, and the nft tests check that
 * the kernel accepts every one of them.
 */
final class RenderCases {
  private RenderCases() {}

  static final String POD_CIDR = "10.0.0.0/8";

  /** A named input. */
  record Case(String name, FamilySettings config, List<ServicePortRules> services) {
    String script() {
      return render(config, services).script();
    }

    Script parsed() {
      return new Script(script());
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * What the live proxy loads for {@code services} into a node without table {@code proxima}: its
   * assembler's full sync, the one path to a whole table.
   */
  static NftRendering render(FamilySettings config, List<ServicePortRules> services) {
    var assembler = new RulesetAssembler(config);
    return new NftRendering(assembler.replaceAll(services), assembler.warnings());
  }

  static FamilySettings v4() {
    return FamilySettings.of(IpFamily.IPV4, List.of(POD_CIDR));
  }

  static FamilySettings v6() {
    return FamilySettings.of(IpFamily.IPV6, List.of("fd00:10::/64"));
  }

  static Case clusterIpWithTwoEndpoints() {
    return new Case(
        "ClusterIP with two endpoints",
        v4(),
        List.of(
            service("ns4/svc4", "172.30.0.44", 80)
                .portName("p80")
                .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80))));
  }

  static Case noEndpoints() {
    return new Case(
        "no endpoints",
        v4(),
        List.of(
            service("ns4/svc4", "172.30.0.44", 80)
                .portName("p80")
                .nodePort(30044)
                .externalIps("192.0.2.44")
                .rules(List.of(), null, false)));
  }

  static Case internalLocalWithoutLocalEndpoints() {
    return new Case(
        "iTP=Local without local endpoints",
        v4(),
        List.of(service("ns/itp", "172.30.0.50", 80).internalLocal().rules(null, List.of(), true)));
  }

  static Case externalLocalLoadBalancerWithSourceRanges() {
    return new Case(
        "eTP=Local load balancer with source ranges",
        v4(),
        List.of(
            service("ns/lb", "172.30.0.60", 443)
                .portName("https")
                .nodePort(30443)
                .loadBalancerIps("203.0.113.10")
                .sourceRanges("198.51.100.0/24", "192.0.2.0/24", "198.51.100.128/25")
                .externalLocal()
                .rules(
                    List.of(local("10.1.0.1", 8443), remote("10.2.0.1", 8443)),
                    List.of(local("10.1.0.1", 8443)),
                    true)));
  }

  static Case externalLocalWithoutLocalEndpoints() {
    return new Case(
        "eTP=Local without local endpoints",
        v4(),
        List.of(
            service("ns/lb", "172.30.0.61", 80)
                .nodePort(30061)
                .loadBalancerIps("203.0.113.11")
                .externalLocal()
                .rules(List.of(remote("10.2.0.1", 8080)), null, true)));
  }

  static Case nodePortOnGivenAddresses() {
    return new Case(
        "NodePort on nodePortAddresses",
        v4().withNodePortAddresses(List.of("192.168.1.10", "192.168.1.11")),
        List.of(
            service("ns/np", "172.30.0.70", 80)
                .nodePort(30070)
                .cluster(remote("10.2.0.7", 8080), remote("10.2.0.8", 8080))));
  }

  static Case nodePortOnAllLocalAddresses() {
    return new Case(
        "NodePort on every local address",
        v4(),
        List.of(
            service("ns/np", "172.30.0.70", 80)
                .nodePort(30070)
                .cluster(remote("10.2.0.7", 8080), remote("10.2.0.8", 8080))));
  }

  static Case multiplePorts() {
    return new Case(
        "one Service with several ports",
        v4(),
        List.of(
            service("ns/web", "172.30.0.80", 80)
                .portName("http")
                .cluster(remote("10.2.0.1", 8080), remote("10.2.0.2", 8080)),
            service("ns/web", "172.30.0.80", 443)
                .portName("https")
                .cluster(remote("10.2.0.1", 8443), remote("10.2.0.2", 8443)),
            service("ns/web", "172.30.0.80", 9090)
                .portName("metrics")
                .cluster(remote("10.2.0.1", 9090))));
  }

  static Case udpAndSctp() {
    return new Case(
        "UDP and SCTP",
        v4(),
        List.of(
            service("kube-system/dns", "172.30.0.10", 53)
                .portName("dns")
                .protocol(Protocol.UDP)
                .nodePort(30053)
                .cluster(remote("10.2.0.53", 53)),
            service("ns/sctp", "172.30.0.90", 9999)
                .protocol(Protocol.SCTP)
                .nodePort(30999)
                .cluster(remote("10.2.0.99", 9999), remote("10.2.0.100", 9999))));
  }

  static Case ipv6() {
    return new Case(
        "IPv6",
        v6(),
        List.of(
            service("ns/v6", "fd00:30::10", 80)
                .nodePort(30080)
                .externalIps("2001:db8::5")
                .loadBalancerIps("2001:db8::6")
                .sourceRanges("2001:db8:100::/48")
                .externalLocal()
                .rules(
                    List.of(local("fd00:10::1", 8080), remote("fd00:10::2", 8080)),
                    List.of(local("fd00:10::1", 8080)),
                    true),
            service("ns/v6-sticky", "fd00:30::11", 53)
                .protocol(Protocol.UDP)
                .sticky(Duration.ofMinutes(30))
                .cluster(remote("fd00:10::3", 5353), remote("fd00:10::4", 5353))));
  }

  /** Ports that keep a share in-zone and spread the rest, one of them with ClientIP affinity. */
  static Case zoneSpillOver() {
    var inZone = List.of(remote("10.1.0.1", 8080), remote("10.1.0.2", 8080));
    var all =
        List.of(
            remote("10.1.0.1", 8080),
            remote("10.1.0.2", 8080),
            remote("10.2.0.1", 8080),
            remote("10.3.0.1", 8080));
    return new Case(
        "zone spill-over",
        v4(),
        List.of(
            new ServicePortRules(
                service("ns/spill", "172.30.0.110", 80).nodePort(30110).build(),
                inZone,
                null,
                true,
                new ZoneSpill(375, all)),
            new ServicePortRules(
                service("ns/spill-sticky", "172.30.0.111", 80)
                    .sticky(Duration.ofSeconds(60))
                    .build(),
                inZone,
                null,
                true,
                new ZoneSpill(0, all))));
  }

  static Case sessionAffinity() {
    return new Case(
        "ClientIP session affinity",
        v4(),
        List.of(
            service("ns/sticky", "172.30.0.100", 80)
                .nodePort(30100)
                .loadBalancerIps("203.0.113.100")
                .externalLocal()
                .sticky(Duration.ofSeconds(10800))
                .rules(
                    List.of(local("10.1.0.1", 8080), remote("10.2.0.1", 8080)),
                    List.of(local("10.1.0.1", 8080)),
                    true)));
  }

  static Case masqueradeAll() {
    return new Case(
        "masqueradeAll",
        v4().withMasqueradeAll(true).withMasqueradeBit(5),
        List.of(service("ns/m", "172.30.0.110", 80).cluster(remote("10.2.0.1", 80))));
  }

  static Case noClusterCidrs() {
    return new Case(
        "no cluster CIDRs",
        FamilySettings.of(IpFamily.IPV4, List.of()),
        List.of(
            service("ns/lb", "172.30.0.120", 80)
                .loadBalancerIps("203.0.113.120")
                .externalLocal()
                .rules(List.of(local("10.1.0.1", 80)), List.of(local("10.1.0.1", 80)), true)));
  }

  static Case sharedEndpoints() {
    return new Case(
        "endpoints shared by two Services",
        FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8", "10.128.0.0/9", "100.64.0.0/10")),
        List.of(
            service("ns/a", "172.30.0.130", 80)
                .cluster(remote("10.2.0.1", 8080), remote("10.2.0.2", 8080)),
            service("ns/a", "172.30.0.130", 81).portName("alt").cluster(remote("10.2.0.1", 8081)),
            service("ns/b", "172.30.0.131", 80).cluster(remote("10.2.0.2", 8080))));
  }

  static Case clashingAddresses() {
    return new Case(
        "two Services claiming the same external address",
        v4(),
        List.of(
            service("ns/first", "172.30.0.140", 80)
                .externalIps("192.0.2.140")
                .cluster(remote("10.2.0.1", 80)),
            service("ns/second", "172.30.0.141", 80)
                .externalIps("192.0.2.140", "192.0.2.141")
                .cluster(remote("10.2.0.2", 80), remote("10.2.0.3", 80))));
  }

  /**
   * Service ports counted per locality: a ClusterIP with an externalIP, a load-balancer IP and a
   * NodePort (which is not counted per Service), two ports of one Service whose targets share an
   * endpoint port, and a port that is not counted.
   */
  static Case countedServicePorts() {
    return new Case(
        "Service ports counted per locality",
        v4(),
        List.of(
            service("ns/web", "172.30.0.160", 80)
                .observeLocality()
                .nodePort(30160)
                .externalIps("192.0.2.160")
                .loadBalancerIps("203.0.113.160")
                .cluster(
                    local("10.1.0.1", 8080),
                    remote("10.2.0.1", 8080, dev.proxima.proxy.model.Locality.ZONE),
                    remote("10.3.0.1", 8080, dev.proxima.proxy.model.Locality.OTHER_ZONE)),
            service("ns/twin", "172.30.0.161", 80)
                .portName("a")
                .observeLocality()
                .cluster(remote("10.2.0.2", 8080, dev.proxima.proxy.model.Locality.ZONE)),
            service("ns/twin", "172.30.0.161", 8080)
                .portName("b")
                .observeLocality()
                .cluster(remote("10.2.0.2", 8080, dev.proxima.proxy.model.Locality.ZONE)),
            service("ns/plain", "172.30.0.162", 80).cluster(remote("10.2.0.3", 80))));
  }

  /** {@link #countedServicePorts()} in IPv6. */
  static Case countedServicePortsIpv6() {
    return new Case(
        "Service ports counted per locality, IPv6",
        v6(),
        List.of(
            service("ns/web6", "fd00:30::20", 443)
                .observeLocality()
                .loadBalancerIps("2001:db8::20")
                .cluster(
                    local("fd00:10::20", 8443),
                    remote("fd00:10::21", 8443, dev.proxima.proxy.model.Locality.OTHER_ZONE))));
  }

  /** {@code --observe-locality=off}: the annotated port is not counted, nor is anything else. */
  static Case localityCountingOff() {
    return new Case(
        "locality counting off", v4().withCountsLocality(false), countedServicePorts().services());
  }

  /** Names nft could choke on: a quote in a comment, and a comment over nft's 128 characters. */
  static Case oddNames() {
    return new Case(
        "odd and long names",
        v4(),
        List.of(
            service("ns/we\"ird ; drop", "172.30.0.150", 80).cluster(remote("10.2.0.1", 80)),
            service("n".repeat(63) + "/" + "s".repeat(63), "172.30.0.151", 80)
                .portName("p".repeat(15))
                .nodePort(30151)
                .sticky(Duration.ofSeconds(86400))
                .rules(List.of(), null, false),
            service("n".repeat(63) + "/" + "s".repeat(63), "172.30.0.151", 81)
                .portName("q".repeat(15))
                .sticky(Duration.ofSeconds(86400))
                .cluster(remote("10.2.0.1", 80))));
  }

  /** {@code count} Services with 0 to 4 endpoints and a mix of features, none sticky. */
  static List<ServicePortRules> many(int count) {
    List<ServicePortRules> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int endpoints = i % 5;
      List<Endpoint> cluster = new ArrayList<>();
      List<Endpoint> local = new ArrayList<>();
      for (int e = 0; e < endpoints; e++) {
        String ip = "10." + (2 + i / 250) + "." + (i % 250) + "." + (e + 1);
        cluster.add(e == 0 ? local(ip, 8080) : remote(ip, 8080));
        if (e == 0) {
          local.add(local(ip, 8080));
        }
      }
      String clusterIp = "172.31." + (i / 250) + "." + (i % 250 + 1);
      ServicePortFixtures.Svc svc = service("load/svc-" + i, clusterIp, 80 + i % 3);
      if (i % 4 == 1) {
        svc.nodePort(30000 + i);
      }
      if (i % 7 == 2) {
        svc.loadBalancerIps("198.18." + (i / 250) + "." + (i % 250 + 1)).sourceRanges("0.0.0.0/0");
      }
      if (i % 6 == 3) {
        svc.externalLocal().nodePort(30000 + i);
      }
      if (i % 11 == 4) {
        svc.internalLocal();
      }
      out.add(svc.rules(cluster, local, endpoints > 0));
    }
    return out;
  }

  /**
   * Ports with so many addresses and endpoints that each endpoint list gets a chain of its own
   * ({@code endpoints-<hash>}): an eTP=Local load balancer with externalIPs and a NodePort, counted
   * per locality, and a UDP ClusterIP with externalIPs.
   */
  static Case manyAddressesAndEndpoints() {
    var cluster = new ArrayList<Endpoint>();
    var local = new ArrayList<Endpoint>();
    for (int i = 1; i <= 12; i++) {
      var endpoint = i <= 3 ? local("10.1.0." + i, 8443) : remote("10.2.0." + i, 8443);
      cluster.add(endpoint);
      if (i <= 3) {
        local.add(endpoint);
      }
    }
    var external = new ArrayList<String>();
    for (int i = 1; i <= 20; i++) {
      external.add("192.0.2." + i);
    }
    var dns = new ArrayList<Endpoint>();
    for (int i = 1; i <= 40; i++) {
      dns.add(remote("10.3.0." + i, 53));
    }
    return new Case(
        "many addresses and endpoints",
        v4(),
        List.of(
            service("ns/big", "172.30.0.70", 443)
                .portName("https")
                .nodePort(30470)
                .externalIps(external.toArray(String[]::new))
                .loadBalancerIps("203.0.113.70")
                .sourceRanges("198.51.100.0/24")
                .externalLocal()
                .observeLocality()
                .rules(cluster, local, true),
            service("ns/dns", "172.30.0.71", 53)
                .protocol(Protocol.UDP)
                .externalIps("192.0.2.100", "192.0.2.101", "192.0.2.102")
                .cluster(dns.toArray(Endpoint[]::new))));
  }

  /** {@link #manyAddressesAndEndpoints()} in IPv6. */
  static Case manyAddressesAndEndpointsIpv6() {
    var cluster = new ArrayList<Endpoint>();
    for (int i = 1; i <= 40; i++) {
      cluster.add(remote("fd00:10::" + Integer.toHexString(i), 8080));
    }
    return new Case(
        "many addresses and endpoints, IPv6",
        v6(),
        List.of(
            service("ns/big6", "fd00:30::70", 80)
                .nodePort(30480)
                .externalIps("2001:db8::70", "2001:db8::71", "2001:db8::72")
                .cluster(cluster.toArray(Endpoint[]::new))));
  }

  static Case thousandServices() {
    return new Case("1000 Services", v4(), many(1000));
  }

  static List<Case> all() {
    return List.of(
        clusterIpWithTwoEndpoints(),
        noEndpoints(),
        internalLocalWithoutLocalEndpoints(),
        externalLocalLoadBalancerWithSourceRanges(),
        externalLocalWithoutLocalEndpoints(),
        nodePortOnGivenAddresses(),
        nodePortOnAllLocalAddresses(),
        new Case(
            "NodePort on no address (nodePortAddresses matched nothing)",
            v4().withNodePortsListed(true),
            nodePortOnGivenAddresses().services()),
        new Case(
            "pods by bridge",
            v4().withPodInterface(PodInterface.bridge("cbr0")),
            externalLocalLoadBalancerWithSourceRanges().services()),
        new Case(
            "pods by interface name prefix, IPv6",
            v6().withPodInterface(PodInterface.namePrefix("veth")),
            ipv6().services()),
        multiplePorts(),
        manyAddressesAndEndpoints(),
        manyAddressesAndEndpointsIpv6(),
        udpAndSctp(),
        ipv6(),
        sessionAffinity(),
        zoneSpillOver(),
        masqueradeAll(),
        noClusterCidrs(),
        sharedEndpoints(),
        clashingAddresses(),
        oddNames(),
        countedServicePorts(),
        countedServicePortsIpv6(),
        localityCountingOff(),
        thousandServices(),
        new Case("nothing at all", v4(), List.of()),
        new Case("nothing at all, IPv6", v6(), List.of()));
  }
}
