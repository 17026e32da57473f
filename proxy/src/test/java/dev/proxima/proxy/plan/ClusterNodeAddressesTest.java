package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpAddress;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClusterNodeAddressesTest {
  private static final ClusterNodeAddresses CLUSTER =
      ClusterNodeAddresses.of(
          List.of(
              node(
                  "node-b",
                  new NodeAddress("192.168.0.3", "InternalIP"),
                  new NodeAddress("fd00:0::3", "InternalIP"),
                  new NodeAddress("198.51.100.3", "ExternalIP"),
                  new NodeAddress("192.168.9.9", "Hostname"),
                  new NodeAddress("node-b.example", "InternalDNS"),
                  new NodeAddress("not an address", "InternalIP")),
              node("node-c", new NodeAddress("192.168.0.4", "InternalIP")),
              new Node()));

  @ParameterizedTest(name = "{0} belongs to {1}")
  @CsvSource(
      nullValues = "none",
      value = {
        "192.168.0.3, node-b",
        "fd00::3, node-b",
        "198.51.100.3, node-b",
        "192.168.0.4, node-c",
        "192.168.9.9, none",
        "192.168.0.5, none"
      })
  void onlyInternalAndExternalIpsOfEitherFamilyAreNodeAddresses(String address, String node) {
    assertThat(CLUSTER.nodeOf(IpAddress.parse(address))).isEqualTo(node);
  }

  @Test
  void anAddressTwoNodesGiveIsToldAsTheFirstNamesWhateverTheOrder() {
    var b = node("node-b", new NodeAddress("192.168.0.3", "InternalIP"));
    var a = node("node-a", new NodeAddress("192.168.0.3", "InternalIP"));

    assertThat(ClusterNodeAddresses.of(List.of(b, a)))
        .isEqualTo(ClusterNodeAddresses.of(List.of(a, b)));
    assertThat(ClusterNodeAddresses.of(List.of(b, a)).nodeOf(IpAddress.parse("192.168.0.3")))
        .isEqualTo("node-a");
  }

  @Test
  void aChangedAddressIsAChangedPolicyAndAHeartbeatIsNot() {
    var before = node("node-b", new NodeAddress("192.168.0.3", "InternalIP"));
    var heartbeat = new NodeBuilder(before).editMetadata().withResourceVersion("2").endMetadata();
    var moved = node("node-b", new NodeAddress("192.168.0.7", "InternalIP"));

    assertThat(policy(ClusterNodeAddresses.of(List.of(heartbeat.build()))).inputs())
        .isEqualTo(policy(ClusterNodeAddresses.of(List.of(before))).inputs());
    assertThat(policy(ClusterNodeAddresses.of(List.of(moved))).inputs())
        .isNotEqualTo(policy(ClusterNodeAddresses.of(List.of(before))).inputs());
    assertThat(ClusterNodeAddresses.addressesOf(before))
        .isEqualTo(Set.of(IpAddress.parse("192.168.0.3")));
  }

  @Test
  void everyNodesPodCidrsAreKnownAndAnAssignedPodCidrIsAChange() {
    var unassigned = node("node-b", new NodeAddress("192.168.0.3", "InternalIP"));
    var assigned =
        new NodeBuilder(unassigned)
            .withNewSpec()
            .withPodCIDRs("10.244.3.0/24", "fd00:10:244:3::/64")
            .endSpec()
            .build();
    var nodes = ClusterNodeAddresses.of(List.of(assigned, node("node-c")));

    assertThat(nodes.podCidrs()).containsExactlyInAnyOrder("10.244.3.0/24", "fd00:10:244:3::/64");
    assertThat(ClusterNodeAddresses.changes(unassigned, assigned)).isTrue();
    assertThat(ClusterNodeAddresses.changes(assigned, new NodeBuilder(assigned).build())).isFalse();
    assertThat(policy(nodes).externalIpRefusal("10.244.3.7")).contains("pod ranges");
    assertThat(policy(nodes).externalIpRefusal("10.244.4.7")).isNull();
  }

  @Test
  void noNodesAreNoAddresses() {
    assertThat(ClusterNodeAddresses.of(List.of())).isEqualTo(ClusterNodeAddresses.NONE);
    assertThat(ClusterNodeAddresses.addressesOf(null)).isEmpty();
    assertThat(ClusterNodeAddresses.NONE.nodeOf(null)).isNull();
  }

  private static AddressPolicy policy(ClusterNodeAddresses nodes) {
    return new AddressPolicy(List.of(), List.of(), List.of(), List.of(), Set.of(), nodes);
  }

  private static Node node(String name, NodeAddress... addresses) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withAddresses(Arrays.asList(addresses))
        .endStatus()
        .build();
  }
}
