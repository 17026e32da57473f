package dev.proxima.proxy.render;

import static dev.proxima.proxy.testing.ApiObjects.service;
import static dev.proxima.proxy.testing.ApiObjects.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.plan.NodeIps;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.PlanWarnings;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * externalIPs and endpoints that would take what belongs to others or to the node, through catalog,
 * planner, address owners and both renderers.
 */
class HostileAddressesTest {
  private static final String NODE_IP = "192.168.0.2";
  private static final Node NODE =
      new NodeBuilder()
          .withNewMetadata()
          .withName("node-a")
          .endMetadata()
          .withNewSpec()
          .withPodCIDRs("10.244.0.0/24")
          .endSpec()
          .withNewStatus()
          .withAddresses(new NodeAddress(NODE_IP, "InternalIP"))
          .endStatus()
          .build();

  /** Another node of the cluster: an InternalIP of each family and an ExternalIP. */
  private static final String NODE_B_IP = "192.168.0.3";

  private static final Node NODE_B =
      new NodeBuilder()
          .withNewMetadata()
          .withName("node-b")
          .endMetadata()
          .withNewStatus()
          .withAddresses(
              new NodeAddress(NODE_B_IP, "InternalIP"),
              new NodeAddress("fd00::3", "InternalIP"),
              new NodeAddress("198.51.100.3", "ExternalIP"),
              new NodeAddress("node-b.example", "Hostname"))
          .endStatus()
          .build();

  /** What the live proxy knows: this Node and every Node of the cluster. */
  private static final AddressPolicy CLUSTER =
      new AddressPolicy(
          NodeIps.all(NODE),
          NodeIps.podCidrs(NODE),
          List.of(),
          List.of(),
          Set.of(),
          ClusterNodeAddresses.of(List.of(NODE, NODE_B)));

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnANodeAddressIsNotProgrammed(ProxyMode mode) {
    var attacker = service("evil", "a", "10.96.0.99").externalIps(NODE_IP, "203.0.113.9").build();

    var plan =
        plan(AddressPolicy.ofNode(NODE), List.of(attacker), slice("evil", "a", "10.244.9.9"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules).doesNotContain(externalIpRule(mode, "evil/a:http", NODE_IP));
    assertThat(rules).contains(externalIpRule(mode, "evil/a:http", "203.0.113.9"));
    assertThat(PlanWarnings.group(plan.warnings()))
        .singleElement()
        .satisfies(
            group -> {
              assertThat(group.object()).isEqualTo("Service evil/a");
              assertThat(group.reason()).isEqualTo("external-ip-forbidden");
              assertThat(group.line()).contains(NODE_IP, "one of this node's addresses");
            });
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnAnotherTenantsPodOrInsideTheServiceRangesIsNotProgrammed(ProxyMode mode) {
    var policy =
        new AddressPolicy(
            List.of(NODE_IP),
            List.of("10.244.0.0/16"),
            List.of("10.96.0.0/12"),
            List.of(),
            Set.of(),
            ClusterNodeAddresses.NONE);
    var attacker =
        service("evil", "a", "10.96.0.99").externalIps("10.244.7.7", "10.100.0.1").build();

    var plan = plan(policy, List.of(attacker), slice("evil", "a", "10.244.9.9"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules)
        .doesNotContain(externalIpRule(mode, "evil/a:http", "10.244.7.7"))
        .doesNotContain(externalIpRule(mode, "evil/a:http", "10.100.0.1"));
    assertThat(String.join("\n", plan.warnings()))
        .contains("pod ranges", "Service ranges", "externalIP is not programmed");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnAPodOfAnotherNodeIsNotProgrammedWithoutAClusterCidr(ProxyMode mode) {
    var nodeC =
        new NodeBuilder()
            .withNewMetadata()
            .withName("node-c")
            .endMetadata()
            .withNewSpec()
            .withPodCIDRs("10.244.2.0/24")
            .endSpec()
            .build();
    var policy =
        new AddressPolicy(
            NodeIps.all(NODE),
            NodeIps.podCidrs(NODE),
            List.of(),
            List.of(),
            Set.of(),
            ClusterNodeAddresses.of(List.of(NODE, NODE_B, nodeC)));
    var attacker =
        service("evil", "a", "10.96.0.99").externalIps("10.244.2.9", "203.0.113.9").build();

    var plan = plan(policy, List.of(attacker), slice("evil", "a", "10.244.9.9"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules)
        .doesNotContain(externalIpRule(mode, "evil/a:http", "10.244.2.9"))
        .contains(externalIpRule(mode, "evil/a:http", "203.0.113.9"));
    assertThat(String.join("\n", plan.warnings())).contains("10.244.2.9", "pod ranges");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnAnotherServicesClusterIpIsRefusedAtAPortThatServiceDoesNotServe(ProxyMode mode) {
    var dns = service("kube-system", "dns", "10.96.0.10").build(); // serves 80 only
    var attacker = service("evil", "a", "10.96.0.99").externalIps("10.96.0.10").build();
    attacker.getSpec().getPorts().get(0).setPort(853);

    var plan =
        plan(
            AddressPolicy.NONE,
            List.of(dns, attacker),
            slice("kube-system", "dns", "10.244.1.5"),
            slice("evil", "a", "10.244.9.9"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules)
        .doesNotContain(
            mode == ProxyMode.nftables ? "10.96.0.10 . tcp . 853" : "-d 10.96.0.10 --dport 853");
    assertThat(plan.collisions())
        .singleElement()
        .asString()
        .contains("10.96.0.10 any port", "evil/a", "kube-system/dns keeps it");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpCidrsAllowExternalIpsOnlyInsideThem(ProxyMode mode) {
    var policy =
        new AddressPolicy(
            List.of(),
            List.of(),
            List.of(),
            List.of("203.0.113.0/24"),
            Set.of(),
            ClusterNodeAddresses.NONE);
    var service =
        service("shop", "web", "10.96.0.20").externalIps("203.0.113.9", "198.51.100.9").build();

    var plan = plan(policy, List.of(service), slice("shop", "web", "10.244.1.5"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules)
        .contains(externalIpRule(mode, "shop/web:http", "203.0.113.9"))
        .doesNotContain(externalIpRule(mode, "shop/web:http", "198.51.100.9"));
    assertThat(plan.warnings()).singleElement().asString().contains("outside --external-ip-cidrs");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anEndpointThatIsThisNodeAtItsOwnNodePortIsNotProgrammed(ProxyMode mode) {
    var service = nodePortService("10.96.0.30", 30080);
    var looping = endpointsAt(30080, NODE_IP, "10.244.1.5");

    var plan = plan(AddressPolicy.ofNode(NODE), List.of(service), looping);

    assertOnlyThePodIsAnEndpointAndTheLoopIsWarned(mode, plan, NODE_IP, 30080);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aNodeAddressAtAnotherPortIsStillAnEndpoint(ProxyMode mode) {
    var service = nodePortService("10.96.0.31", 30081); // a host-network exporter

    var plan = plan(AddressPolicy.ofNode(NODE), List.of(service), endpointsAt(9100, NODE_IP));

    assertThat(plan.ports().get(0).endpoints()).hasSize(1);
    assertThat(plan.warnings()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnAnotherNodesInternalIpIsNotProgrammedAndWarnedOnce(ProxyMode mode) {
    // Two ports share the list: on node-a, traffic to node-b's kubelet would reach the tenant.
    var attacker = service("evil", "a", "10.96.0.98").externalIps(NODE_B_IP, "203.0.113.9").build();
    var kubelet =
        new ServicePortBuilder().withName("kubelet").withPort(10250).withProtocol("TCP").build();
    attacker.getSpec().getPorts().add(kubelet);

    var plan = plan(CLUSTER, List.of(attacker), slice("evil", "a", "10.244.9.9"));
    var rules = HostileSizesTest.render(mode, plan);

    assertThat(rules).doesNotContain(externalIpRule(mode, "evil/a:http", NODE_B_IP));
    assertThat(rules).contains(externalIpRule(mode, "evil/a:http", "203.0.113.9"));
    assertThat(rules)
        .doesNotContain(NODE_B_IP + " . tcp . 10250")
        .doesNotContain("-d " + NODE_B_IP);
    assertThat(PlanWarnings.group(plan.warnings()))
        .singleElement()
        .satisfies(
            group -> {
              assertThat(group.object()).isEqualTo("Service evil/a");
              assertThat(group.reason()).isEqualTo("external-ip-forbidden");
              assertThat(group.count()).isEqualTo(1);
              assertThat(group.line()).contains(NODE_B_IP, "an address of node node-b");
            });
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void externalIpOnAnotherNodesExternalIpIsNotProgrammed(ProxyMode mode) {
    var attacker = service("evil", "a", "10.96.0.97").externalIps("198.51.100.3").build();

    var plan = plan(CLUSTER, List.of(attacker), slice("evil", "a", "10.244.9.9"));

    assertThat(HostileSizesTest.render(mode, plan))
        .doesNotContain(externalIpRule(mode, "evil/a:http", "198.51.100.3"));
    assertThat(PlanWarnings.group(plan.warnings()))
        .singleElement()
        .satisfies(group -> assertThat(group.reason()).isEqualTo("external-ip-forbidden"));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anEndpointAtAnotherNodesAddressAtANodePortIsNotProgrammed(ProxyMode mode) {
    // node-a would forward to node-b's NodePort, and node-b, told the same, back to node-a's.
    var service = nodePortService("10.96.0.32", 30082);
    var looping = endpointsAt(30082, NODE_B_IP, NODE_IP, "10.244.1.5");

    var plan = plan(CLUSTER, List.of(service), looping);

    assertOnlyThePodIsAnEndpointAndTheLoopIsWarned(mode, plan, NODE_B_IP, 30082);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anEndpointAtAnotherNodesAddressAtAnotherServicesNodePortIsNotProgrammed(ProxyMode mode) {
    // NodePorts are allocated cluster-wide: node-b serves the victim's NodePort too.
    var victim = service("shop", "victim", "10.96.0.33").build();
    victim.getSpec().setType("NodePort");
    victim.getSpec().getPorts().get(0).setNodePort(30083);
    var service = service("evil", "loop", "10.96.0.34").build();

    var plan =
        plan(
            CLUSTER,
            List.of(victim, service),
            slice("shop", "victim", "10.244.1.6"),
            endpointsAt(30083, NODE_B_IP, "10.244.1.5"));
    var loop = plan.ports().stream().filter(p -> p.port().name().toString().startsWith("evil"));

    assertThat(loop)
        .singleElement()
        .satisfies(
            p -> assertThat(p.endpoints()).extracting(e -> e.ip()).containsExactly("10.244.1.5"));
    assertThat(HostileSizesTest.render(mode, plan))
        .doesNotContain(NODE_B_IP + ":30083")
        .doesNotContain(NODE_B_IP + " . 30083");
    assertThat(PlanWarnings.group(plan.warnings()))
        .singleElement()
        .satisfies(group -> assertThat(group.line()).contains("an address of node node-b"));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anotherNodesAddressAtAPortThatIsNoNodePortIsStillAnEndpoint(ProxyMode mode) {
    var service = nodePortService("10.96.0.35", 30085); // a host-network exporter

    var plan = plan(CLUSTER, List.of(service), endpointsAt(9100, NODE_B_IP));

    assertThat(plan.ports().get(0).endpoints()).extracting(e -> e.ip()).containsExactly(NODE_B_IP);
    assertThat(HostileSizesTest.render(mode, plan)).contains(NODE_B_IP);
    assertThat(plan.warnings()).isEmpty();
  }

  /** Service evil/loop of type NodePort, its one port at {@code nodePort}. */
  private static Service nodePortService(String clusterIp, int nodePort) {
    var service = service("evil", "loop", clusterIp).build();
    service.getSpec().setType("NodePort");
    service.getSpec().getPorts().get(0).setNodePort(nodePort);
    return service;
  }

  /** The pod 10.244.1.5 is the only endpoint, no rule leads to the node's NodePort, one warning. */
  private static void assertOnlyThePodIsAnEndpointAndTheLoopIsWarned(
      ProxyMode mode, NodePlanner.FamilyPlan plan, String nodeAddress, int nodePort) {
    assertThat(plan.ports().get(0).endpoints())
        .extracting(e -> e.ip())
        .containsExactly("10.244.1.5");
    assertThat(HostileSizesTest.render(mode, plan))
        .doesNotContain(nodeAddress + ":" + nodePort)
        .doesNotContain(nodeAddress + " . " + nodePort);
    assertThat(PlanWarnings.group(plan.warnings()))
        .singleElement()
        .satisfies(group -> assertThat(group.reason()).isEqualTo("nodeport-loop"));
  }

  private static NodePlanner.FamilyPlan plan(
      AddressPolicy policy, List<Service> services, EndpointSlice... slices) {
    return NodePlanner.plan(
        IpFamily.IPV4,
        "node-a",
        NODE,
        null,
        services,
        List.of(slices),
        policy,
        ZoneDemand.unknown());
  }

  private static EndpointSlice endpointsAt(int port, String... addresses) {
    var builder =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("evil")
            .withName("loop-1")
            .withLabels(Map.of(Labels.SERVICE_NAME, "loop"))
            .endMetadata()
            .withAddressType("IPv4")
            .addNewPort()
            .withName("http")
            .withPort(port)
            .withProtocol("TCP")
            .endPort();
    for (var address : addresses) {
      builder
          .addNewEndpoint()
          .withAddresses(address)
          .withNodeName("node-b")
          .withNewConditions()
          .withReady(true)
          .endConditions()
          .endEndpoint();
    }
    var slice = builder.build();
    return slice;
  }

  private static String externalIpRule(ProxyMode mode, String portName, String address) {
    return mode == ProxyMode.nftables
        ? address + " . tcp . 80 comment \"" + portName + "\" : goto external-"
        : portName + " external IP\" -m tcp -p tcp -d " + address + " --dport 80";
  }
}
