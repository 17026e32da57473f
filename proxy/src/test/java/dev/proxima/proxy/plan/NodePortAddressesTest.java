package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Which addresses accept NodePorts, from --nodeport-addresses and the host's addresses. */
class NodePortAddressesTest {
  private static final List<String> HOST =
      List.of("127.0.0.1", "192.168.0.2", "10.1.2.3", "::1", "2001:db8::1", "fe80::1");
  private static final List<String> PRIMARY = List.of("192.168.0.2", "2001:db8::1");

  /**
   * @param restricted whether the family's NodePorts are limited to {@code expected}; false means
   *     every local address
   */
  record Row(
      String name,
      List<String> flag,
      IpFamily family,
      List<String> primary,
      boolean restricted,
      List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Row> rows() {
    return Stream.of(
        new Row("unset: every local address", List.of(), IpFamily.IPV4, PRIMARY, false, List.of()),
        new Row(
            "a CIDR selects the host's addresses inside it",
            List.of("10.0.0.0/8", "192.168.0.0/24"),
            IpFamily.IPV4,
            PRIMARY,
            true,
            List.of("192.168.0.2", "10.1.2.3")),
        new Row(
            "nothing inside the CIDR: no address at all",
            List.of("172.16.0.0/12"),
            IpFamily.IPV4,
            PRIMARY,
            true,
            List.of()),
        new Row(
            "a family the flag names no CIDR of: every local address, as kube-proxy",
            List.of("172.16.0.0/12"),
            IpFamily.IPV6,
            PRIMARY,
            false,
            List.of()),
        new Row(
            "loopback never accepts NodePorts",
            List.of("0.0.0.0/0"),
            IpFamily.IPV4,
            PRIMARY,
            true,
            List.of("192.168.0.2", "10.1.2.3")),
        new Row(
            "primary: the node's primary IP of the family",
            List.of("primary"),
            IpFamily.IPV6,
            PRIMARY,
            true,
            List.of("2001:db8::1")),
        new Row(
            "primary without a Node: no address at all",
            List.of("primary"),
            IpFamily.IPV4,
            List.of(),
            true,
            List.of()),
        new Row(
            "primary and a CIDR add up",
            List.of("primary", "10.1.0.0/16"),
            IpFamily.IPV4,
            PRIMARY,
            true,
            List.of("192.168.0.2", "10.1.2.3")));
  }

  @ParameterizedTest
  @MethodSource("rows")
  void selectsFromTheHostsAddresses(Row row) {
    var settings = new RuleSettings(List.of(), false, 14, row.flag());

    assertThat(settings.restrictsNodePorts(row.family())).isEqualTo(row.restricted());
    assertThat(settings.nodePortAddresses(row.family(), HOST, row.primary()))
        .containsExactlyElementsOf(row.expected());
  }

  @Test
  void aValueThatIsNeitherACidrNorPrimaryIsAStartupError() {
    assertThatThrownBy(() -> new RuleSettings(List.of(), false, 14, List.of("Primary")))
        .hasMessage("--nodeport-addresses: \"Primary\" is not a CIDR or \"primary\"");
  }

  @Test
  void thePrimaryIpsAreTheFirstInternalIpOfEachFamilyElseTheFirstExternalIp() {
    var node =
        new NodeBuilder()
            .withNewStatus()
            .withAddresses(
                new NodeAddress("node-a", "Hostname"),
                new NodeAddress("203.0.113.9", "ExternalIP"),
                new NodeAddress("2001:db8::9", "ExternalIP"),
                new NodeAddress("192.168.0.2", "InternalIP"),
                new NodeAddress("192.168.0.3", "InternalIP"))
            .endStatus()
            .build();

    assertThat(NodeIps.primary(node)).containsExactly("192.168.0.2", "2001:db8::9");
    assertThat(NodeIps.primary(null)).isEmpty();
  }

  @Test
  void nftablesModeDefaultsToThePrimaryIpsAndIptablesModeToEveryLocalAddress() {
    var unset = RuleSettings.defaults();

    var nftables = unset.withDefaultNodePortAddressesOf(dev.proxima.proxy.model.ProxyMode.nftables);
    var iptables = unset.withDefaultNodePortAddressesOf(dev.proxima.proxy.model.ProxyMode.iptables);

    assertThat(nftables.nodePortAddresses(IpFamily.IPV4, HOST, PRIMARY))
        .containsExactly("192.168.0.2");
    assertThat(iptables.restrictsNodePorts(IpFamily.IPV4)).isFalse();
  }

  @Test
  void everyAddressWidensNodePortsToEveryAddressButLoopback() {
    var wide =
        new RuleSettings(List.of(), false, 14, RuleSettings.EVERY_ADDRESS)
            .withDefaultNodePortAddressesOf(dev.proxima.proxy.model.ProxyMode.nftables);

    assertThat(wide.nodePortAddresses(IpFamily.IPV4, HOST, PRIMARY))
        .containsExactly("192.168.0.2", "10.1.2.3");
    assertThat(wide.nodePortAddresses(IpFamily.IPV6, HOST, PRIMARY))
        .containsExactly("2001:db8::1", "fe80::1");
  }
}
