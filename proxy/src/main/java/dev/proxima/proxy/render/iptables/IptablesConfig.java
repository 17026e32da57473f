package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.IpLiteral;
import dev.proxima.proxy.render.PodInterface;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Node-wide settings of one family's iptables rules. Invalid values are configuration errors and
 * are rejected here, at startup, rather than producing a buffer that {@code iptables-restore}
 * refuses.
 *
 * @param family the IP family: {@code iptables} for IPv4, {@code ip6tables} for IPv6
 * @param clusterCidrs this family's pod CIDRs: traffic from outside them to a ClusterIP is
 *     masqueraded, traffic from inside them to an eTP=Local external address short-circuits to the
 *     Cluster endpoints. Empty, with no {@code podInterface}, turns local-traffic detection off.
 * @param masqueradeAll masquerade all ClusterIP traffic, whatever its source
 * @param masqueradeBit the bit of the packet mark that requests masquerading (default 14, 0x4000)
 * @param nodePortAddresses this node's addresses that accept NodePorts; empty means every local
 *     address except loopback ({@code -m addrtype --dst-type LOCAL})
 * @param podInterface pod traffic is what arrives on this interface (kube-proxy's BridgeInterface
 *     and InterfaceNamePrefix modes), or null to tell it by {@code clusterCidrs}
 * @param nodePortsListed true when {@code --nodeport-addresses} restricts this family: NodePorts
 *     are accepted on {@code nodePortAddresses} only, on no address at all when it is empty (fail
 *     closed); false accepts them on every local address
 */
public record IptablesConfig(
    IpFamily family,
    List<String> clusterCidrs,
    boolean masqueradeAll,
    int masqueradeBit,
    List<String> nodePortAddresses,
    PodInterface podInterface,
    boolean nodePortsListed) {
  public static final int DEFAULT_MASQUERADE_BIT = 14;

  public IptablesConfig {
    Objects.requireNonNull(family, "family");
    if (masqueradeBit < 0 || masqueradeBit > 31) {
      throw new IllegalArgumentException("masqueradeBit must be 0..31, got " + masqueradeBit);
    }
    Set<String> cidrs = new LinkedHashSet<>();
    for (String text : List.copyOf(clusterCidrs)) {
      String cidr = text.trim();
      if (IpLiteral.familyOfCidr(cidr) != family) {
        throw new IllegalArgumentException("not an " + family.apiName() + " CIDR: " + text);
      }
      cidrs.add(cidr);
    }
    clusterCidrs = List.copyOf(cidrs);
    Set<String> addresses = new LinkedHashSet<>();
    for (String text : List.copyOf(nodePortAddresses)) {
      String address = text.trim();
      if (IpFamily.of(address) != family) {
        throw new IllegalArgumentException(
            "not an " + family.apiName() + " address (nodePortAddresses): " + text);
      }
      addresses.add(address);
    }
    nodePortAddresses = List.copyOf(addresses);
  }

  /** The defaults: no masqueradeAll, mark bit 14, NodePorts on every local address. */
  public static IptablesConfig of(IpFamily family, List<String> clusterCidrs) {
    return new IptablesConfig(
        family, clusterCidrs, false, DEFAULT_MASQUERADE_BIT, List.of(), null, false);
  }

  public IptablesConfig withMasqueradeAll(boolean value) {
    return new IptablesConfig(
        family,
        clusterCidrs,
        value,
        masqueradeBit,
        nodePortAddresses,
        podInterface,
        nodePortsListed);
  }

  public IptablesConfig withMasqueradeBit(int value) {
    return new IptablesConfig(
        family,
        clusterCidrs,
        masqueradeAll,
        value,
        nodePortAddresses,
        podInterface,
        nodePortsListed);
  }

  /** These addresses only; an empty list means every local address again. */
  public IptablesConfig withNodePortAddresses(List<String> value) {
    return new IptablesConfig(
        family, clusterCidrs, masqueradeAll, masqueradeBit, value, podInterface, !value.isEmpty());
  }

  public IptablesConfig withPodInterface(PodInterface value) {
    return new IptablesConfig(
        family,
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortAddresses,
        value,
        nodePortsListed);
  }

  /** NodePorts on {@code nodePortAddresses} only (none when empty), or on every local address. */
  public IptablesConfig withNodePortsListed(boolean value) {
    return new IptablesConfig(
        family, clusterCidrs, masqueradeAll, masqueradeBit, nodePortAddresses, podInterface, value);
  }

  /** True when the rules can tell pod traffic from other traffic. */
  public boolean detectsLocalTraffic() {
    return podInterface != null || !clusterCidrs.isEmpty();
  }

  /** The mark value, {@code 1 << masqueradeBit}, in hex as iptables-save prints it: 0x4000. */
  public String masqueradeMark() {
    return "0x" + Long.toHexString(1L << masqueradeBit);
  }

  /** {@code iptables-restore} or {@code ip6tables-restore}. */
  public String restoreCommand() {
    return family == IpFamily.IPV6 ? "ip6tables-restore" : "iptables-restore";
  }

  /** {@code iptables} or {@code ip6tables}. */
  public String command() {
    return family == IpFamily.IPV6 ? "ip6tables" : "iptables";
  }

  /** The REJECT type for "no endpoints": {@code icmp-port-unreachable} or its ICMPv6 twin. */
  String rejectWith() {
    return family == IpFamily.IPV6 ? "icmp6-port-unreachable" : "icmp-port-unreachable";
  }

  /** The loopback range NodePorts are never matched on. */
  String loopback() {
    return family == IpFamily.IPV6 ? "::1/128" : "127.0.0.0/8";
  }
}
