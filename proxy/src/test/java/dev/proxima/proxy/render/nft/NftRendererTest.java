package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class NftRendererTest {
  private static final String MASQUERADE_OUTSIDE_PODS =
      "ip saddr != 10.0.0.0/8 ip daddr @cluster-ips jump mark-for-masquerade";

  private static final Predicate<String> LB_CHAIN =
      name -> name.matches("(nodeport-)?(local-)?lb-\\d+");

  private static final Predicate<String> FIREWALL_CHAIN = name -> name.startsWith("fw-");

  /** The firewall chain the address tuple's {@code firewall-ips} element goes to. */
  static String firewallChainOf(Script script, String tuple) {
    var verdicts =
        script.elements("firewall-ips").stream()
            .filter(element -> element.startsWith(tuple + " "))
            .map(element -> element.substring(element.indexOf(" : goto ") + 8))
            .toList();
    assertThat(verdicts)
        .as("firewall-ips of " + tuple)
        .singleElement()
        .asString()
        .startsWith("fw-");
    return verdicts.get(0);
  }

  @Nested
  class LocalityCounting {
    private final Script script =
        new RenderCases.Case(
                "endpoints of every locality",
                RenderCases.v4(),
                List.of(
                    service("ns/web", "172.30.0.60", 80)
                        .cluster(
                            local("10.180.0.1", 80),
                            remote("10.180.1.1", 80, Locality.ZONE),
                            remote("10.180.2.1", 80, Locality.OTHER_ZONE),
                            remote("10.180.3.1", 80, Locality.UNKNOWN)),
                    service("ns/api", "172.30.0.61", 8080)
                        .cluster(remote("10.180.1.1", 8080, Locality.ZONE))))
            .parsed();

    @Test
    void putsEachEndpointAddressOnceInTheSetOfItsLocality() {
      assertThat(script.elements("locality-node-endpoints")).containsExactly("10.180.0.1");
      assertThat(script.elements("locality-zone-endpoints")).containsExactly("10.180.1.1");
      assertThat(script.elements("locality-other-zone-endpoints")).containsExactly("10.180.2.1");
      assertThat(script.elements("locality-unknown-endpoints")).containsExactly("10.180.3.1");
    }

    @Test
    void countsNewDnatedConnectionsInTheCountersElementOfTheFirstMatchingSet() {
      assertThat(script.rules("filter-postrouting"))
          .containsExactly("ct state new ct status dnat jump locality");
      assertThat(script.rules("locality"))
          .filteredOn(rule -> rule.contains("@connection-counts"))
          .containsExactly(
              "ip daddr @locality-node-endpoints meta mark & 0 | 0x00000001 @connection-counts return",
              "ip daddr @locality-zone-endpoints meta mark & 0 | 0x00000002 @connection-counts return",
              "ip daddr @locality-other-zone-endpoints meta mark & 0 | 0x00000003 @connection-counts"
                  + " return",
              "ip daddr @locality-unknown-endpoints meta mark & 0 | 0x00000004 @connection-counts return");
      assertThat(script.lines())
          .contains(
              "add set ip proxima connection-counts { type mark ; counter ;"
                  + " comment \"connections per locality, without endpoints\" ; }")
          .noneMatch(line -> line.startsWith("add counter"));
      assertThat(script.elements("connection-counts"))
          .containsExactly("0x00000001", "0x00000002", "0x00000003", "0x00000004", "0x00000000");
    }

    @Test
    void countsEachServicePortByTheAddressAndPortTheClientDialled() {
      assertThat(script.rules("locality"))
          .contains(
              "ip daddr @locality-node-endpoints meta l4proto { tcp, udp, sctp }"
                  + " ct original ip daddr . meta l4proto . ct original proto-dst @service-node");
    }
  }

  @Nested
  class TheScript {
    @Test
    void replacesOnlyItsOwnTableInOneTransaction() {
      List<String> lines = RenderCases.clusterIpWithTwoEndpoints().parsed().lines();

      assertThat(lines.subList(0, 3))
          .containsExactly(
              "add table ip proxima { comment \"rules for proxima\" ; }",
              "delete table ip proxima",
              "add table ip proxima { comment \"rules for proxima\" ; }");
      assertThat(lines)
          .allSatisfy(
              line ->
                  assertThat(line)
                      .matches(
                          "^(add (table|chain|set|map|rule|element|counter) ip proxima.*"
                              + "|delete table ip proxima|\t.*|\\})$"));
    }

    @Test
    void declaresTheBaseChainsWithNumericPriorities() {
      assertThat(RenderCases.clusterIpWithTwoEndpoints().parsed().lines())
          .contains(
              "add chain ip proxima nat-prerouting { type nat hook prerouting priority -100 ; }",
              "add chain ip proxima nat-output { type nat hook output priority -100 ; }",
              "add chain ip proxima nat-postrouting { type nat hook postrouting priority 100 ; }",
              "add chain ip proxima filter-prerouting-pre-dnat"
                  + " { type filter hook prerouting priority -110 ; }",
              "add chain ip proxima filter-output-pre-dnat"
                  + " { type filter hook output priority -110 ; }",
              "add chain ip proxima filter-input { type filter hook input priority 0 ; }",
              "add chain ip proxima filter-forward { type filter hook forward priority 0 ; }",
              "add chain ip proxima filter-output { type filter hook output priority 0 ; }");
    }

    @Test
    void wiresTheBaseChainsToTheFixedChains() {
      Script script = RenderCases.clusterIpWithTwoEndpoints().parsed();

      assertThat(script.rules("nat-prerouting")).containsExactly("jump services");
      assertThat(script.rules("nat-output")).containsExactly("jump services");
      assertThat(script.rules("nat-postrouting")).containsExactly("jump masquerading");
      assertThat(script.rules("filter-prerouting-pre-dnat"))
          .containsExactly("ct state new jump firewall-check");
      assertThat(script.rules("filter-output-pre-dnat"))
          .containsExactly("ct state new jump firewall-check");
      assertThat(script.rules("filter-input"))
          .containsExactly(
              "ct state new jump nodeport-endpoints-check",
              "ct state new jump service-endpoints-check");
      assertThat(script.rules("filter-forward"))
          .containsExactly(
              "ct state new jump service-endpoints-check", "ct state new jump cluster-ips-check");
      assertThat(script.rules("filter-output"))
          .containsExactly(
              "ct state new jump service-endpoints-check", "ct state new jump cluster-ips-check");
      assertThat(script.rules("services"))
          .containsExactly(
              "ip daddr . meta l4proto . th dport vmap @service-ips",
              "fib daddr type local ip daddr != 127.0.0.0/8"
                  + " meta l4proto . th dport vmap @service-nodeports");
      assertThat(script.rules("masquerading"))
          .containsExactly(
              "ct status dnat ip saddr . ip daddr @hairpins jump mark-for-masquerade",
              "mark and 0x4000 == 0 return",
              "mark set mark xor 0x4000",
              "masquerade fully-random");
      assertThat(script.rules("mark-for-masquerade")).containsExactly("mark set mark or 0x4000");
      assertThat(script.rules("reject-chain"))
          .containsExactly("meta mark & 0 | 0x00000000 @connection-counts", "reject");
      assertThat(script.rules("no-endpoint-drop"))
          .containsExactly("meta mark & 0 | 0x00000000 @connection-counts", "drop");
      assertThat(script.rules("service-endpoints-check"))
          .containsExactly("ip daddr . meta l4proto . th dport vmap @no-endpoint-services");
      assertThat(script.rules("cluster-ips-check"))
          .containsExactly("ip daddr @cluster-ips reject", "ip daddr @service-cidrs drop");
      assertThat(script.rules("firewall-check"))
          .containsExactly("ip daddr . meta l4proto . th dport vmap @firewall-ips");
      assertThat(script.rules("external-cluster"))
          .containsExactly(
              "jump mark-for-masquerade",
              "ip daddr . meta l4proto . th dport vmap @cluster-dispatch");
      assertThat(script.rules("nodeport-external-cluster"))
          .containsExactly(
              "jump mark-for-masquerade",
              "meta l4proto . th dport vmap @nodeport-cluster-dispatch");
    }

    @Test
    void declaresEveryChainAndSetBeforeTheFirstLineThatNamesIt() {
      Script script = RenderCases.sessionAffinity().parsed();
      List<String> lines = script.lines();
      List<String> names = new ArrayList<>(script.chains());
      names.addAll(script.sets());

      assertThat(names).hasSizeGreaterThan(40).anyMatch(name -> name.startsWith("sticky-"));
      for (String name : names) {
        // An affinity chain and its timeout set share a name: both come first.
        String declaration = "add (chain|set|map) ip proxima " + Pattern.quote(name) + "( .*)?";
        int lastDeclaration = -1;
        for (int i = 0; i < lines.size(); i++) {
          if (lines.get(i).matches(declaration)) {
            lastDeclaration = i;
          }
        }
        int firstUse = firstIndexOf(lines, line -> namesObject(line, name));

        assertThat(lastDeclaration).as(name).isNotNegative();
        if (firstUse >= 0) {
          assertThat(lastDeclaration).as(name).isLessThan(firstUse);
        }
      }
    }

    @Test
    void isTheSameForTheSameInputInAnyOrder() {
      List<ServicePortRules> services = new ArrayList<>(RenderCases.many(300));
      services.addAll(RenderCases.sessionAffinity().services());
      services.addAll(RenderCases.clashingAddresses().services());
      String first = RenderCases.render(RenderCases.v4(), services).script();

      assertThat(RenderCases.render(RenderCases.v4(), services).script()).isEqualTo(first);
      for (long seed = 1; seed <= 5; seed++) {
        List<ServicePortRules> shuffled = new ArrayList<>(services);
        Collections.shuffle(shuffled, new Random(seed));
        assertThat(RenderCases.render(RenderCases.v4(), shuffled).script()).isEqualTo(first);
      }
    }

    @Test
    void writesNoEmptyElementBlocks() {
      Script script = new RenderCases.Case("empty", RenderCases.v4(), List.of()).parsed();

      // The counters set's elements are the fixed table's only ones.
      assertThat(script.lines())
          .filteredOn(line -> line.startsWith("add element"))
          .allMatch(line -> line.startsWith("add element ip proxima connection-counts {"))
          .noneMatch(line -> line.matches(".*\\{\\s*\\}.*"));
      assertThat(script.elements("connection-counts")).hasSize(5);
      assertThat(script.chains()).noneMatch(LB_CHAIN);
    }

    @Test
    void cleanupDeletesTheTableWhetherOrNotItExists() {
      assertThat(new NftTransaction(new NftText(IpFamily.IPV4)).deleteTable().toString())
          .isEqualTo("add table ip proxima\ndelete table ip proxima\n");
      assertThat(new NftTransaction(new NftText(IpFamily.IPV6)).deleteTable().toString())
          .isEqualTo("add table ip6 proxima\ndelete table ip6 proxima\n");
    }
  }

  @Nested
  class AClusterIp {
    @Test
    void withTwoEndpointsGoesToTheSharedLb2ChainAndIndexesItsEndpoints() {
      Script script = RenderCases.clusterIpWithTwoEndpoints().parsed();

      assertThat(script.elements("cluster-ips")).containsExactly("172.30.0.44");
      assertThat(script.elements("service-ips"))
          .containsExactly("172.30.0.44 . tcp . 80 comment \"ns4/svc4:p80\" : goto lb-2");
      assertThat(script.elements("lb-2"))
          .containsExactly(
              "172.30.0.44 . tcp . 80 . 0 : 10.180.0.4 . 80",
              "172.30.0.44 . tcp . 80 . 1 : 10.180.0.5 . 80");
      assertThat(script.rules("lb-2"))
          .containsExactly(
              MASQUERADE_OUTSIDE_PODS,
              "dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2" + " map @lb-2");
      assertThat(script.elements("hairpins"))
          .containsExactly("10.180.0.4 . 10.180.0.4", "10.180.0.5 . 10.180.0.5");
      assertThat(script.elements("no-endpoint-services")).isEmpty();
      assertThat(script.chains()).filteredOn(LB_CHAIN).containsExactly("lb-2");
    }

    @Test
    void withoutEndpointsRejectsOnEveryAddressAndTheNodePort() {
      Script script = RenderCases.noEndpoints().parsed();

      assertThat(script.elements("cluster-ips")).containsExactly("172.30.0.44");
      assertThat(script.elements("service-ips")).isEmpty();
      assertThat(script.elements("service-nodeports")).isEmpty();
      assertThat(script.elements("no-endpoint-services"))
          .containsExactly(
              "172.30.0.44 . tcp . 80 comment \"ns4/svc4:p80\" : goto reject-chain",
              "192.0.2.44 . tcp . 80 comment \"ns4/svc4:p80\" : goto reject-chain");
      assertThat(script.elements("no-endpoint-nodeports"))
          .containsExactly("tcp . 30044 comment \"ns4/svc4:p80\" : goto reject-chain");
      assertThat(script.chains()).noneMatch(LB_CHAIN);
    }

    @Test
    void withInternalTrafficLocalAndNoLocalEndpointsDrops() {
      Script script = RenderCases.internalLocalWithoutLocalEndpoints().parsed();

      assertThat(script.elements("no-endpoint-services"))
          .containsExactly("172.30.0.50 . tcp . 80 comment \"ns/itp\" : goto no-endpoint-drop");
      assertThat(script.elements("service-ips")).isEmpty();
    }

    @Test
    void withInternalTrafficLocalUsesTheLocalListAndItsOwnChain() {
      Script script =
          new Script(
              RenderCases.render(
                      RenderCases.v4(),
                      List.of(
                          service("ns/itp", "172.30.0.51", 80)
                              .internalLocal()
                              .rules(null, List.of(local("10.1.0.9", 80)), true)))
                  .script());

      assertThat(script.elements("service-ips"))
          .containsExactly("172.30.0.51 . tcp . 80 comment \"ns/itp\" : goto local-lb-1");
      assertThat(script.elements("local-lb-1"))
          .containsExactly("172.30.0.51 . tcp . 80 . 0 : 10.1.0.9 . 80");
      assertThat(script.rules("local-lb-1"))
          .containsExactly(
              MASQUERADE_OUTSIDE_PODS,
              "dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 1"
                  + " map @local-lb-1");
    }

    @Test
    void ofEachPortOfAServiceIsItsOwnTuple() {
      Script script = RenderCases.multiplePorts().parsed();

      assertThat(script.elements("cluster-ips")).containsExactly("172.30.0.80");
      assertThat(script.elements("service-ips"))
          .containsExactly(
              "172.30.0.80 . tcp . 80 comment \"ns/web:http\" : goto lb-2",
              "172.30.0.80 . tcp . 443 comment \"ns/web:https\" : goto lb-2",
              "172.30.0.80 . tcp . 9090 comment \"ns/web:metrics\" : goto lb-1");
      assertThat(script.elements("lb-2"))
          .containsExactly(
              "172.30.0.80 . tcp . 80 . 0 : 10.2.0.1 . 8080",
              "172.30.0.80 . tcp . 80 . 1 : 10.2.0.2 . 8080",
              "172.30.0.80 . tcp . 443 . 0 : 10.2.0.1 . 8443",
              "172.30.0.80 . tcp . 443 . 1 : 10.2.0.2 . 8443");
      assertThat(script.elements("lb-1"))
          .containsExactly("172.30.0.80 . tcp . 9090 . 0 : 10.2.0.1 . 9090");
      assertThat(script.chains()).filteredOn(LB_CHAIN).containsExactlyInAnyOrder("lb-1", "lb-2");
    }

    @Test
    void keysUdpAndSctpByTheirProtocol() {
      Script script = RenderCases.udpAndSctp().parsed();

      assertThat(script.elements("service-ips"))
          .containsExactly(
              "172.30.0.10 . udp . 53 comment \"kube-system/dns:dns\" : goto lb-1",
              "172.30.0.90 . sctp . 9999 comment \"ns/sctp\" : goto lb-2");
      assertThat(script.elements("service-nodeports"))
          .containsExactly(
              "udp . 30053 comment \"kube-system/dns:dns\" : goto nodeport-external-cluster",
              "sctp . 30999 comment \"ns/sctp\" : goto nodeport-external-cluster");
      assertThat(script.elements("nodeport-lb-1"))
          .containsExactly("udp . 30053 . 0 : 10.2.0.53 . 53");
      assertThat(script.elements("nodeport-lb-2"))
          .containsExactly(
              "sctp . 30999 . 0 : 10.2.0.99 . 9999", "sctp . 30999 . 1 : 10.2.0.100 . 9999");
    }
  }

  @Nested
  class ExternalTraffic {
    @Test
    void toAnExternalLocalLoadBalancerIsFirewalledAndPrefersLocalEndpoints() {
      Script script = RenderCases.externalLocalLoadBalancerWithSourceRanges().parsed();
      String lb = "203.0.113.10 . tcp . 443";

      assertThat(script.elements("service-ips"))
          .containsExactly(
              "172.30.0.60 . tcp . 443 comment \"ns/lb:https\" : goto lb-2",
              lb + " comment \"ns/lb:https\" : goto external-local");
      assertThat(script.elements("cluster-dispatch")).containsExactly(lb + " : goto lb-2");
      assertThat(script.elements("local-dispatch")).containsExactly(lb + " : goto local-lb-1");
      assertThat(script.elements("lb-2"))
          .contains(lb + " . 0 : 10.1.0.1 . 8443", lb + " . 1 : 10.2.0.1 . 8443");
      assertThat(script.elements("local-lb-1")).containsExactly(lb + " . 0 : 10.1.0.1 . 8443");
      String firewall = firewallChainOf(script, lb);
      assertThat(script.elements("firewall-ips"))
          .containsExactly(lb + " comment \"ns/lb:https\" : goto " + firewall);
      assertThat(script.rules(firewall)).containsExactly("ip saddr != @" + firewall + " drop");
      assertThat(script.elements(firewall))
          .as("the /25 inside the /24 is left out: nft rejects nested intervals")
          .containsExactlyInAnyOrder("198.51.100.0/24", "192.0.2.0/24");
      assertThat(script.elements("no-endpoint-services")).isEmpty();
      assertThat(script.rules("external-local"))
          .containsExactly(
              "ip saddr 10.0.0.0/8 ip daddr . meta l4proto . th dport vmap @cluster-dispatch",
              "fib saddr type local jump mark-for-masquerade",
              "fib saddr type local ip daddr . meta l4proto . th dport vmap @cluster-dispatch",
              "ip daddr . meta l4proto . th dport vmap @local-dispatch");
    }

    @Test
    void toAnExternalLocalNodePortBypassesSourceRanges() {
      Script script = RenderCases.externalLocalLoadBalancerWithSourceRanges().parsed();

      assertThat(script.elements("service-nodeports"))
          .containsExactly("tcp . 30443 comment \"ns/lb:https\" : goto nodeport-external-local");
      assertThat(script.elements("nodeport-cluster-dispatch"))
          .containsExactly("tcp . 30443 : goto nodeport-lb-2");
      assertThat(script.elements("nodeport-local-dispatch"))
          .containsExactly("tcp . 30443 : goto nodeport-local-lb-1");
      assertThat(script.elements("nodeport-local-lb-1"))
          .containsExactly("tcp . 30443 . 0 : 10.1.0.1 . 8443");
      assertThat(script.elements("firewall-ips")).noneMatch(e -> e.startsWith("tcp . 30443"));
      assertThat(script.rules("nodeport-lb-2"))
          .containsExactly(
              "dnat ip to meta l4proto . th dport . numgen random mod 2" + " map @nodeport-lb-2");
      assertThat(script.rules("nodeport-external-local"))
          .containsExactly(
              "ip saddr 10.0.0.0/8 meta l4proto . th dport vmap @nodeport-cluster-dispatch",
              "fib saddr type local jump mark-for-masquerade",
              "fib saddr type local meta l4proto . th dport vmap @nodeport-cluster-dispatch",
              "meta l4proto . th dport vmap @nodeport-local-dispatch");
    }

    @Test
    void withoutLocalEndpointsIsDroppedWhilePodsAndTheHostStillShortCircuit() {
      Script script = RenderCases.externalLocalWithoutLocalEndpoints().parsed();
      String lb = "203.0.113.11 . tcp . 80";

      assertThat(script.elements("service-ips"))
          .contains(lb + " comment \"ns/lb\" : goto external-local");
      assertThat(script.elements("cluster-dispatch")).containsExactly(lb + " : goto lb-1");
      assertThat(script.elements("local-dispatch")).isEmpty();
      assertThat(script.elements("no-endpoint-services"))
          .containsExactly(lb + " comment \"ns/lb\" : goto no-endpoint-drop");
      assertThat(script.elements("nodeport-cluster-dispatch"))
          .containsExactly("tcp . 30061 : goto nodeport-lb-1");
      assertThat(script.elements("nodeport-local-dispatch")).isEmpty();
      assertThat(script.elements("no-endpoint-nodeports"))
          .containsExactly("tcp . 30061 comment \"ns/lb\" : goto no-endpoint-drop");
    }

    @Test
    void toAnExternalClusterAddressIsMasqueradedAndUsesTheClusterList() {
      Script script = RenderCases.clashingAddresses().parsed();

      assertThat(script.elements("service-ips"))
          .contains("192.0.2.140 . tcp . 80 comment \"ns/first\" : goto external-cluster");
      assertThat(script.elements("cluster-dispatch"))
          .contains("192.0.2.140 . tcp . 80 : goto lb-1");
    }

    @Test
    void onAnAddressAnEarlierServiceHoldsIsSkippedWithAWarning() {
      RenderCases.Case clash = RenderCases.clashingAddresses();
      NftRendering rendering = RenderCases.render(clash.config(), clash.services());
      Script script = new Script(rendering.script());

      assertThat(script.elements("service-ips"))
          .contains(
              "192.0.2.140 . tcp . 80 comment \"ns/first\" : goto external-cluster",
              "192.0.2.141 . tcp . 80 comment \"ns/second\" : goto external-cluster")
          .noneMatch(e -> e.startsWith("192.0.2.140") && e.contains("ns/second"));
      assertThat(script.elements("cluster-dispatch"))
          .containsExactly(
              "192.0.2.140 . tcp . 80 : goto lb-1", "192.0.2.141 . tcp . 80 : goto lb-2");
      assertThat(rendering.warnings())
          .containsExactly(
              "ns/second: 192.0.2.140 . tcp . 80 . 0 in lb-2 is already held by ns/first; skipped",
              "ns/second: 192.0.2.140 . tcp . 80 in service-ips is already held by ns/first;"
                  + " skipped",
              "ns/second: 192.0.2.140 . tcp . 80 in cluster-dispatch is already held by ns/first;"
                  + " skipped");
    }
  }

  @Nested
  class NodePorts {
    @Test
    void onGivenAddressesMatchTheNodePortIpsSet() {
      Script script = RenderCases.nodePortOnGivenAddresses().parsed();

      assertThat(script.lines())
          .contains(
              "add set ip proxima nodeport-ips"
                  + " { type ipv4_addr ; comment \"addresses that accept NodePorts\" ; }");
      assertThat(script.elements("nodeport-ips")).containsExactly("192.168.1.10", "192.168.1.11");
      assertThat(script.rules("services"))
          .contains("ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports");
      assertThat(script.rules("nodeport-endpoints-check"))
          .containsExactly(
              "ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports");
      assertThat(script.elements("service-nodeports"))
          .containsExactly("tcp . 30070 comment \"ns/np\" : goto nodeport-external-cluster");
      assertThat(script.elements("nodeport-cluster-dispatch"))
          .containsExactly("tcp . 30070 : goto nodeport-lb-2");
      assertThat(script.elements("nodeport-lb-2"))
          .containsExactly(
              "tcp . 30070 . 0 : 10.2.0.7 . 8080", "tcp . 30070 . 1 : 10.2.0.8 . 8080");
    }

    @Test
    void onAllLocalAddressesMatchFibExceptLoopback() {
      Script script = RenderCases.nodePortOnAllLocalAddresses().parsed();

      assertThat(script.sets()).doesNotContain("nodeport-ips");
      assertThat(script.rules("services"))
          .contains(
              "fib daddr type local ip daddr != 127.0.0.0/8"
                  + " meta l4proto . th dport vmap @service-nodeports");
      assertThat(script.rules("nodeport-endpoints-check"))
          .containsExactly(
              "fib daddr type local ip daddr != 127.0.0.0/8"
                  + " meta l4proto . th dport vmap @no-endpoint-nodeports");
    }

    @Test
    void onLoopbackAddressesAreNotOfferedAndSaySoOnce() {
      List<ServicePortRules> services =
          new ArrayList<>(RenderCases.nodePortOnAllLocalAddresses().services());
      services.addAll(RenderCases.many(3));
      NftRendering rendering =
          RenderCases.render(
              RenderCases.v4().withNodePortAddresses(List.of("127.0.0.1", "192.168.1.10")),
              services);

      assertThat(new Script(rendering.script()).elements("nodeport-ips"))
          .containsExactly("192.168.1.10");
      assertThat(rendering.warnings()).singleElement().asString().contains("127.0.0.1");
    }
  }

  @Nested
  class SessionAffinity {
    @Test
    void usesAStickyChainPerListAndAnAffinityChainAndTimeoutSetPerEndpoint() {
      Script script = RenderCases.sessionAffinity().parsed();
      String clusterChain = target(script.elements("cluster-dispatch").get(0));
      String localChain = target(script.elements("local-dispatch").get(0));
      String localEndpoint = affinityOf(script, clusterChain, 0);
      String remoteEndpoint = affinityOf(script, clusterChain, 1);

      assertThat(script.elements("service-ips"))
          .containsExactly(
              "172.30.0.100 . tcp . 80 comment \"ns/sticky\" : goto " + clusterChain,
              "203.0.113.100 . tcp . 80 comment \"ns/sticky\" : goto external-local");
      assertThat(script.elements("nodeport-cluster-dispatch"))
          .containsExactly("tcp . 30100 : goto " + clusterChain);
      assertThat(script.elements("nodeport-local-dispatch"))
          .containsExactly("tcp . 30100 : goto " + localChain);
      assertThat(clusterChain).startsWith("sticky-").isNotEqualTo(localChain);
      assertThat(localChain).startsWith("sticky-");
      assertThat(script.rules(clusterChain))
          .containsExactly(
              MASQUERADE_OUTSIDE_PODS,
              "ip saddr @" + localEndpoint + " goto " + localEndpoint,
              "ip saddr @" + remoteEndpoint + " goto " + remoteEndpoint,
              "numgen random mod 2 vmap { 0 : goto "
                  + localEndpoint
                  + ", 1 : goto "
                  + remoteEndpoint
                  + " }");
      assertThat(script.rules(localChain))
          .as("the local endpoint's chain and set are shared by both lists")
          .containsExactly(
              MASQUERADE_OUTSIDE_PODS,
              "ip saddr @" + localEndpoint + " goto " + localEndpoint,
              "numgen random mod 1 vmap { 0 : goto " + localEndpoint + " }");
      assertThat(script.rules(localEndpoint))
          .containsExactly(
              "update @" + localEndpoint + " { ip saddr }",
              "meta l4proto tcp dnat ip to 10.1.0.1:8080");
      assertThat(script.rules(remoteEndpoint))
          .containsExactly(
              "update @" + remoteEndpoint + " { ip saddr }",
              "meta l4proto tcp dnat ip to 10.2.0.1:8080");
      assertThat(script.lines())
          .contains(
              "add set ip proxima "
                  + localEndpoint
                  + " { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }");
      assertThat(script.chains())
          .containsOnlyOnce(localEndpoint, remoteEndpoint, clusterChain, localChain)
          .noneMatch(LB_CHAIN);
      assertThat(script.sets()).noneMatch(LB_CHAIN);
      assertThat(script.elements("hairpins"))
          .containsExactly("10.1.0.1 . 10.1.0.1", "10.2.0.1 . 10.2.0.1");
    }

    @Test
    void keepsItsChainNamesWhenOtherServicesChange() {
      String alone = String.join("\n", RenderCases.sessionAffinity().parsed().chains());
      List<ServicePortRules> more = new ArrayList<>(RenderCases.many(50));
      more.addAll(RenderCases.sessionAffinity().services());
      Script together = new Script(RenderCases.render(RenderCases.v4(), more).script());

      assertThat(together.chains()).containsAll(List.of(alone.split("\n")));
    }

    @Test
    void roundsATimeoutUpToWholeSeconds() {
      Script script =
          new Script(
              RenderCases.render(
                      RenderCases.v4(),
                      List.of(
                          service("ns/s", "172.30.0.1", 80)
                              .sticky(Duration.ofMillis(1500))
                              .cluster(remote("10.2.0.1", 80))))
                  .script());

      assertThat(script.lines()).anyMatch(line -> line.endsWith("timeout 2s ; }"));
    }
  }

  @Nested
  class Masquerading {
    @Test
    void ofAllClusterIpTrafficUsesTheConfiguredMark() {
      Script script = RenderCases.masqueradeAll().parsed();

      assertThat(script.rules("lb-1"))
          .containsExactly(
              "ip daddr @cluster-ips jump mark-for-masquerade",
              "dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 1" + " map @lb-1");
      assertThat(script.rules("mark-for-masquerade")).containsExactly("mark set mark or 0x20");
      assertThat(script.rules("masquerading"))
          .contains("mark and 0x20 == 0 return", "mark set mark xor 0x20");
    }

    @Test
    void withoutClusterCidrsHasNoLocalTrafficDetection() {
      Script script = RenderCases.noClusterCidrs().parsed();

      assertThat(script.rules("lb-1"))
          .containsExactly(
              "dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 1" + " map @lb-1");
      assertThat(script.rules("external-local"))
          .containsExactly(
              "fib saddr type local jump mark-for-masquerade",
              "fib saddr type local ip daddr . meta l4proto . th dport vmap @cluster-dispatch",
              "ip daddr . meta l4proto . th dport vmap @local-dispatch");
    }

    @Test
    void withSeveralClusterCidrsMatchesAnAnonymousSetOfTheOutermost() {
      Script script = RenderCases.sharedEndpoints().parsed();

      assertThat(script.rules("lb-1"))
          .startsWith(
              "ip saddr != { 10.0.0.0/8, 100.64.0.0/10 } ip daddr @cluster-ips"
                  + " jump mark-for-masquerade");
      assertThat(script.rules("external-local").get(0))
          .isEqualTo(
              "ip saddr { 10.0.0.0/8, 100.64.0.0/10 }"
                  + " ip daddr . meta l4proto . th dport vmap @cluster-dispatch");
    }

    @Test
    void ofHairpinTrafficListsEveryEndpointAddressOnce() {
      Script script = RenderCases.sharedEndpoints().parsed();

      assertThat(script.elements("hairpins"))
          .containsExactly("10.2.0.1 . 10.2.0.1", "10.2.0.2 . 10.2.0.2");
    }
  }

  @Nested
  class Ipv6 {
    @Test
    void usesTheIp6TableSelectorsAndAddressTypes() {
      Script script = RenderCases.ipv6().parsed();

      assertThat(script.lines().get(1)).isEqualTo("delete table ip6 proxima");
      assertThat(script.lines())
          .contains(
              "add map ip6 proxima lb-2 { typeof ip6 daddr . meta l4proto . th dport"
                  + " . numgen random mod 1 : ip6 daddr . th dport ;"
                  + " comment \"endpoint i of ports with 2 endpoints\" ; }",
              "add set ip6 proxima hairpins"
                  + " { type ipv6_addr . ipv6_addr ; comment \"endpoint . endpoint\" ; }");
      assertThat(script.elements("service-ips"))
          .contains(
              "fd00:30::10 . tcp . 80 comment \"ns/v6\" : goto lb-2",
              "2001:db8::5 . tcp . 80 comment \"ns/v6\" : goto external-local",
              "2001:db8::6 . tcp . 80 comment \"ns/v6\" : goto external-local");
      assertThat(script.elements("lb-2"))
          .contains(
              "fd00:30::10 . tcp . 80 . 0 : fd00:10::1 . 8080",
              "fd00:30::10 . tcp . 80 . 1 : fd00:10::2 . 8080");
      String firewall = firewallChainOf(script, "2001:db8::6 . tcp . 80");
      assertThat(script.rules(firewall)).containsExactly("ip6 saddr != @" + firewall + " drop");
      assertThat(script.elements(firewall)).containsExactly("2001:db8:100::/48");
      assertThat(script.rules("lb-2"))
          .containsExactly(
              "ip6 saddr != fd00:10::/64 ip6 daddr @cluster-ips jump mark-for-masquerade",
              "dnat ip6 to ip6 daddr . meta l4proto . th dport . numgen random mod 2"
                  + " map @lb-2");
      assertThat(script.rules("services"))
          .contains(
              "fib daddr type local ip6 daddr != ::1"
                  + " meta l4proto . th dport vmap @service-nodeports");
      assertThat(script.rules("masquerading"))
          .contains("ct status dnat ip6 saddr . ip6 daddr @hairpins jump mark-for-masquerade");
    }

    @Test
    void writesStickyTargetsInBrackets() {
      Script script = RenderCases.ipv6().parsed();
      String sticky = target(script.elements("service-ips").get(3));
      String endpoint = affinityOf(script, sticky, 0);

      assertThat(script.elements("service-ips").get(3)).contains("fd00:30::11 . udp . 53");
      assertThat(script.rules(endpoint))
          .containsExactly(
              "update @" + endpoint + " { ip6 saddr }",
              "meta l4proto udp dnat ip6 to [fd00:10::3]:5353");
      assertThat(script.lines())
          .contains(
              "add set ip6 proxima "
                  + endpoint
                  + " { type ipv6_addr ; flags dynamic,timeout ; timeout 1800s ; }");
    }

    @Test
    void printsAddressesCanonically() {
      Script script =
          new Script(
              RenderCases.render(
                      RenderCases.v6(),
                      List.of(
                          service("ns/v6", "FD00:0030:0:0::0010", 80)
                              .cluster(remote("fd00:10:0::0:1", 8080))))
                  .script());

      assertThat(script.elements("service-ips"))
          .containsExactly("fd00:30::10 . tcp . 80 comment \"ns/v6\" : goto lb-1");
      assertThat(script.elements("hairpins")).containsExactly("fd00:10::1 . fd00:10::1");
    }
  }

  @Nested
  class Scale {
    @Test
    void theChainCountDoesNotGrowWithTheNumberOfServices() {
      Script one = new Script(RenderCases.render(RenderCases.v4(), RenderCases.many(1)).script());
      Script thousand =
          new Script(RenderCases.render(RenderCases.v4(), RenderCases.many(1000)).script());
      List<String> lbChains = thousand.chains().stream().filter(LB_CHAIN).toList();
      var shared = LB_CHAIN.or(FIREWALL_CHAIN);

      assertThat(thousand.elements("service-ips")).hasSizeGreaterThan(500);
      assertThat(thousand.chains().stream().filter(shared.negate()))
          .containsExactlyElementsOf(one.chains().stream().filter(shared.negate()).toList());
      assertThat(thousand.chains().stream().filter(FIREWALL_CHAIN))
          .as("one firewall chain per distinct source-range list: all of them share one")
          .hasSize(1);
      assertThat(lbChains)
          .as("one lb chain per distinct endpoint count (1 to 4) and kind")
          .allMatch(name -> name.matches(".*lb-[1-4]"))
          .hasSizeLessThanOrEqualTo(16);
      assertThat(thousand.chains().size() - one.chains().size())
          .isEqualTo(lbChains.size() + 1 - one.chains().stream().filter(shared).count());
    }

    @Test
    void onlySessionAffinityAddsChainsPerService() {
      List<ServicePortRules> sticky = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        sticky.add(
            service("ns/s" + i, "172.30.1." + (i + 1), 80)
                .sticky(Duration.ofSeconds(60))
                .cluster(remote("10.3." + i + ".1", 80), remote("10.3." + i + ".2", 80)));
      }
      int base =
          new Script(RenderCases.render(RenderCases.v4(), List.of()).script()).chains().size();

      assertThat(new Script(RenderCases.render(RenderCases.v4(), sticky).script()).chains())
          .as("per port: a sticky chain and one affinity chain per endpoint")
          .hasSize(base + 10 * 3);
    }
  }

  @Nested
  class InputItCannotUse {
    @Test
    void isLeftOutWithAWarningSoTheRestStillLoads() {
      ServicePortRules wrongFamily =
          service("ns/bad", "fd00::1", 80).cluster(remote("10.2.0.1", 80));
      ServicePortRules badEndpoints =
          service("ns/eps", "172.30.0.2", 80)
              .cluster(remote("fd00::5", 80), remote("10.2.0.2", 0), remote("10.2.0.3", 80));
      NftRendering rendering =
          RenderCases.render(RenderCases.v4(), List.of(wrongFamily, badEndpoints));
      Script script = new Script(rendering.script());

      assertThat(script.elements("cluster-ips")).containsExactly("172.30.0.2");
      assertThat(script.elements("lb-1"))
          .containsExactly("172.30.0.2 . tcp . 80 . 0 : 10.2.0.3 . 80");
      assertThat(rendering.warnings())
          .containsExactly(
              "ns/bad: clusterIP fd00::1 is not an IPv4 address; skipped",
              "ns/eps: endpoint [fd00::5]:80 is not an IPv4 address",
              "ns/eps: endpoint 10.2.0.2:0 has an out-of-range port");
    }

    @Test
    void failsClosedWhenNoSourceRangeIsUsable() {
      NftRendering rendering =
          RenderCases.render(
              RenderCases.v4(),
              List.of(
                  service("ns/lb", "172.30.0.3", 80)
                      .loadBalancerIps("203.0.113.3")
                      .sourceRanges("not-a-cidr")
                      .cluster(remote("10.2.0.1", 80))));
      Script script = new Script(rendering.script());

      String firewall = firewallChainOf(script, "203.0.113.3 . tcp . 80");
      assertThat(script.rules(firewall))
          .as("with an empty set, the chain drops every source")
          .containsExactly("ip saddr != @" + firewall + " drop");
      assertThat(script.elements(firewall)).isEmpty();
      assertThat(rendering.warnings()).singleElement().asString().contains("not-a-cidr");
    }

    @Test
    void neverBreaksOutOfAQuotedCommentNorExceedsNftsCommentLimit() {
      Script script = RenderCases.oddNames().parsed();
      String longName = "n".repeat(63) + "/" + "s".repeat(63) + ":";

      assertThat(script.elements("service-ips"))
          .contains("172.30.0.150 . tcp . 80 comment \"ns/we_ird___drop\" : goto lb-1");
      assertThat(longName).hasSize(128);
      assertThat(script.elements("no-endpoint-services"))
          .containsExactly(
              "172.30.0.151 . tcp . 80 comment \"" + longName + "\" : goto reject-chain");
    }
  }

  @Test
  void everyNameIsAShortNftIdentifier() {
    for (RenderCases.Case c : RenderCases.all()) {
      Script script = c.parsed();
      assertThat(script.chains()).allMatch(name -> name.matches("[a-z][a-z0-9-]{0,31}"));
      assertThat(script.sets()).allMatch(name -> name.matches("[a-z][a-z0-9-]{0,31}"));
    }
  }

  private static String target(String element) {
    return element.substring(element.lastIndexOf("goto ") + 5);
  }

  /** The affinity chain the sticky chain's vmap sends index {@code i} to. */
  private static String affinityOf(Script script, String stickyChain, int i) {
    List<String> rules = script.rules(stickyChain);
    String vmap = rules.get(rules.size() - 1);
    String after = vmap.substring(vmap.indexOf(i + " : goto ") + (i + " : goto ").length());
    return after.split("[ ,]")[0];
  }

  private static int firstIndexOf(List<String> lines, Predicate<String> match) {
    for (int i = 0; i < lines.size(); i++) {
      if (match.test(lines.get(i))) {
        return i;
      }
    }
    return -1;
  }

  /** A rule or element block of {@code name}, or a reference to it ({@code goto}, {@code @}). */
  private static boolean namesObject(String line, String name) {
    return line.matches(
        "(add (rule|element) ip proxima "
            + Pattern.quote(name)
            + "( .*)?|.*(goto |jump |@)"
            + Pattern.quote(name)
            + "([ ,}].*)?)");
  }
}
