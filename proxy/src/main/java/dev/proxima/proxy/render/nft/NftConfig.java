package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.render.PodInterface;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Node-wide settings of one family's ruleset. Invalid values are configuration errors and are
 * rejected here, at startup, rather than producing a ruleset that {@code nft} refuses.
 *
 * <p>The lists are normalized: CIDRs get their host bits cleared and ranges inside another one are
 * dropped (nft rejects nested ranges in interval sets), addresses are printed canonically, and
 * duplicates are removed.
 *
 * @param family the IP family of the ruleset
 * @param clusterCidrs this family's pod CIDRs: traffic from outside them to a ClusterIP is
 *     masqueraded, traffic from inside them to an eTP=Local external address short-circuits to the
 *     Cluster endpoints. Empty, with no {@code podInterface}, turns local-traffic detection off.
 * @param masqueradeAll masquerade all ClusterIP traffic, whatever its source
 * @param masqueradeBit the bit of the packet mark that requests masquerading (kube-proxy's default
 *     is 14, mark 0x4000)
 * @param nodePortAddresses this node's addresses that accept NodePorts; empty means every local
 *     address except loopback ({@code fib daddr type local})
 * @param podInterface pod traffic is what arrives on this interface (kube-proxy's BridgeInterface
 *     and InterfaceNamePrefix modes), or null to tell it by {@code clusterCidrs}
 * @param nodePortsListed true when {@code --nodeport-addresses} restricts this family: NodePorts
 *     are accepted on {@code nodePortAddresses} only, on no address at all when it is empty (fail
 *     closed); false accepts them on every local address
 */
public record NftConfig(
    NftFamily family,
    List<String> clusterCidrs,
    boolean masqueradeAll,
    int masqueradeBit,
    List<String> nodePortAddresses,
    PodInterface podInterface,
    boolean nodePortsListed) {
  public static final int DEFAULT_MASQUERADE_BIT = 14;

  public NftConfig {
    Objects.requireNonNull(family, "family");
    if (masqueradeBit < 0 || masqueradeBit > 31) {
      throw new IllegalArgumentException("masqueradeBit must be 0..31, got " + masqueradeBit);
    }
    List<NftAddresses.Cidr> cidrs = new ArrayList<>();
    for (String text : List.copyOf(clusterCidrs)) {
      cidrs.add(
          NftAddresses.parseCidr(text, family)
              .orElseThrow(
                  () -> new IllegalArgumentException("not an " + family + " CIDR: " + text)));
    }
    clusterCidrs = NftAddresses.outermost(cidrs).stream().map(NftAddresses.Cidr::toString).toList();
    Set<String> addresses = new LinkedHashSet<>();
    for (String text : List.copyOf(nodePortAddresses)) {
      addresses.add(
          NftAddresses.canonical(text.trim(), family)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "not an " + family + " address (nodePortAddresses): " + text)));
    }
    nodePortAddresses = List.copyOf(addresses);
  }

  /** The defaults: no masqueradeAll, mark bit 14, NodePorts on every local address. */
  public static NftConfig of(NftFamily family, List<String> clusterCidrs) {
    return new NftConfig(
        family, clusterCidrs, false, DEFAULT_MASQUERADE_BIT, List.of(), null, false);
  }

  public NftConfig withMasqueradeAll(boolean value) {
    return new NftConfig(
        family,
        clusterCidrs,
        value,
        masqueradeBit,
        nodePortAddresses,
        podInterface,
        nodePortsListed);
  }

  public NftConfig withMasqueradeBit(int value) {
    return new NftConfig(
        family,
        clusterCidrs,
        masqueradeAll,
        value,
        nodePortAddresses,
        podInterface,
        nodePortsListed);
  }

  /** These addresses only; an empty list means every local address again. */
  public NftConfig withNodePortAddresses(List<String> value) {
    return new NftConfig(
        family, clusterCidrs, masqueradeAll, masqueradeBit, value, podInterface, !value.isEmpty());
  }

  public NftConfig withPodInterface(PodInterface value) {
    return new NftConfig(
        family,
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortAddresses,
        value,
        nodePortsListed);
  }

  /** NodePorts on {@code nodePortAddresses} only (none when empty), or on every local address. */
  public NftConfig withNodePortsListed(boolean value) {
    return new NftConfig(
        family, clusterCidrs, masqueradeAll, masqueradeBit, nodePortAddresses, podInterface, value);
  }

  /** True when the rules can tell pod traffic from other traffic. */
  public boolean detectsLocalTraffic() {
    return podInterface != null || !clusterCidrs.isEmpty();
  }

  /** The mark value, {@code 1 << masqueradeBit}, in hex as nft prints it ({@code 0x4000}). */
  public String masqueradeMark() {
    return "0x" + Long.toHexString(1L << masqueradeBit);
  }
}
