package dev.proxima.proxy.plan;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The masquerade decision of each {@code --detect-local-mode}, in both modes: what the rules treat
 * as pod traffic (not masqueraded to a ClusterIP, allowed to any endpoint of an eTP=Local external
 * address) and what not.
 */
class DetectLocalRulesTest {
  private static final RuleSettings CLUSTER_CIDR =
      new RuleSettings(List.of("10.0.0.0/8", "fd00:10::/64"), false, 14, List.of());
  private static final List<String> NODE_POD_CIDRS = List.of("10.244.1.0/24", "fd00:10:1::/64");

  /** A ClusterIP with two endpoints and an eTP=Local load balancer, in both tables. */
  private static final List<ServicePortRules> SERVICES =
      List.of(
          service("ns4/svc4", "172.30.0.44", 80)
              .portName("p80")
              .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80)),
          service("ns7/svc7", "172.30.0.47", 80)
              .portName("http")
              .nodePort(30007)
              .loadBalancerIps("1.2.3.4")
              .externalLocal()
              .rules(
                  List.of(local("10.180.0.7", 8080), remote("10.180.1.7", 8080)),
                  List.of(local("10.180.0.7", 8080)),
                  true));

  /**
   * @param podMatch nft: the match of pod traffic; null when the mode detects none
   * @param iptablesPodMatch iptables: the same
   */
  record Row(
      String name,
      RuleSettings settings,
      List<String> nodePodCidrs,
      String podMatch,
      String notPodMatch,
      String iptablesPodMatch) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Row> rows() {
    return Stream.of(
        new Row(
            "ClusterCIDR: the source is in --cluster-cidr",
            CLUSTER_CIDR,
            NODE_POD_CIDRS,
            "ip saddr 10.0.0.0/8",
            "ip saddr != 10.0.0.0/8",
            "-s 10.0.0.0/8"),
        new Row(
            "NodeCIDR: the source is in the Node's spec.podCIDRs, not --cluster-cidr",
            CLUSTER_CIDR.withDetectLocal(DetectLocalMode.NODE_CIDR, "", ""),
            NODE_POD_CIDRS,
            "ip saddr 10.244.1.0/24",
            "ip saddr != 10.244.1.0/24",
            "-s 10.244.1.0/24"),
        new Row(
            "NodeCIDR on a Node without spec.podCIDRs falls back to --cluster-cidr",
            CLUSTER_CIDR.withDetectLocal(DetectLocalMode.NODE_CIDR, "", ""),
            List.of("not-a-cidr"),
            "ip saddr 10.0.0.0/8",
            "ip saddr != 10.0.0.0/8",
            "-s 10.0.0.0/8"),
        new Row(
            "NodeCIDR with pod CIDRs of the other family only detects nothing in this one",
            CLUSTER_CIDR.withDetectLocal(DetectLocalMode.NODE_CIDR, "", ""),
            List.of("fd00:10:1::/64"),
            null,
            null,
            null),
        new Row(
            "NodeCIDR without a pod CIDR or any fallback detects nothing",
            new RuleSettings(List.of(), false, 14, List.of())
                .withDetectLocal(DetectLocalMode.NODE_CIDR, "", ""),
            List.of(),
            null,
            null,
            null),
        new Row(
            "BridgeInterface: the packet arrives on the bridge",
            CLUSTER_CIDR.withDetectLocal(DetectLocalMode.BRIDGE_INTERFACE, "cbr0", ""),
            NODE_POD_CIDRS,
            "iifname \"cbr0\"",
            "iifname != \"cbr0\"",
            "-i cbr0"),
        new Row(
            "InterfaceNamePrefix: the packet arrives on an interface with that prefix",
            CLUSTER_CIDR.withDetectLocal(DetectLocalMode.INTERFACE_NAME_PREFIX, "", "veth"),
            NODE_POD_CIDRS,
            "iifname \"veth*\"",
            "iifname != \"veth*\"",
            "-i veth+"));
  }

  @ParameterizedTest
  @MethodSource("rows")
  void nftMasqueradesClusterIpTrafficThatIsNotFromPodsAndShortCircuitsPodTraffic(Row row) {
    var config = row.settings().forFamily(IpFamily.IPV4, List.of(), row.nodePodCidrs());
    var lines = new RulesetAssembler(config).replaceAll(SERVICES).lines().toList();

    var masquerade = "ip daddr @cluster-ips jump mark-for-masquerade";
    var shortCircuit = "ip daddr . meta l4proto . th dport vmap @cluster-dispatch";
    if (row.podMatch() == null) {
      assertThat(lines).noneMatch(l -> l.contains(masquerade) && !l.contains("masquerade-all"));
      assertThat(lines).noneMatch(l -> l.contains("ip saddr") && l.contains("cluster-dispatch"));
      assertThat(lines).noneMatch(l -> l.contains("iifname"));
    } else {
      assertThat(lines)
          .contains(
              "add rule ip proxima lb-2 " + row.notPodMatch() + " " + masquerade,
              "add rule ip proxima external-local " + row.podMatch() + " " + shortCircuit);
    }
  }

  @ParameterizedTest
  @MethodSource("rows")
  void iptablesMasqueradesClusterIpTrafficThatIsNotFromPodsAndShortCircuitsPodTraffic(Row row) {
    var config = row.settings().forFamily(IpFamily.IPV4, List.of(), row.nodePodCidrs());
    var lines = IptablesRenderer.render(config, SERVICES).filterAndNat().lines().toList();

    var clusterIpMasquerade =
        lines.stream()
            .filter(l -> l.startsWith("-A PROXIMA-SVC-") && l.contains("-j PROXIMA-MARK-MASQ"))
            .toList();
    var podShortCircuit =
        lines.stream()
            .filter(l -> l.startsWith("-A PROXIMA-EXT-") && l.contains("pod traffic for"))
            .toList();
    if (row.iptablesPodMatch() == null) {
      assertThat(clusterIpMasquerade).isEmpty();
      assertThat(podShortCircuit).isEmpty();
    } else {
      assertThat(clusterIpMasquerade)
          .hasSize(2)
          .allMatch(l -> l.endsWith(" ! " + row.iptablesPodMatch() + " -j PROXIMA-MARK-MASQ"));
      assertThat(podShortCircuit)
          .singleElement()
          .satisfies(
              l -> assertThat(l).contains(" " + row.iptablesPodMatch() + " -j PROXIMA-SVC-"));
    }
  }

  @Test
  void anInterfaceModeWithoutItsInterfaceIsAStartupError() {
    assertThatThrownBy(
            () -> CLUSTER_CIDR.withDetectLocal(DetectLocalMode.BRIDGE_INTERFACE, " ", ""))
        .hasMessage("--detect-local-mode=BridgeInterface needs --pod-bridge-interface");
    assertThatThrownBy(
            () -> CLUSTER_CIDR.withDetectLocal(DetectLocalMode.INTERFACE_NAME_PREFIX, "", null))
        .hasMessage("--detect-local-mode=InterfaceNamePrefix needs --pod-interface-name-prefix");
  }

  @Test
  void anInterfaceNameThatWouldChangeTheRuleIsAStartupError() {
    for (var name : List.of("veth*", "cbr0\" accept", "a b", "sixteen-chars-xx")) {
      assertThatThrownBy(
              () -> CLUSTER_CIDR.withDetectLocal(DetectLocalMode.INTERFACE_NAME_PREFIX, "", name))
          .as(name)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not an interface name prefix");
    }
  }

  @Test
  void theNodesPodCidrsComeFromSpecPodCidrsOrTheOlderSingleField() {
    var node = new io.fabric8.kubernetes.api.model.NodeBuilder().withNewSpec().endSpec().build();
    assertThat(NodeIps.podCidrs(null)).isEmpty();
    assertThat(NodeIps.podCidrs(node)).isEmpty();
    node.getSpec().setPodCIDR("10.244.1.0/24");
    assertThat(NodeIps.podCidrs(node)).containsExactly("10.244.1.0/24");
    node.getSpec().setPodCIDRs(List.of("10.244.2.0/24", "fd00:10:2::/64"));
    assertThat(NodeIps.podCidrs(node)).containsExactly("10.244.2.0/24", "fd00:10:2::/64");
  }
}
