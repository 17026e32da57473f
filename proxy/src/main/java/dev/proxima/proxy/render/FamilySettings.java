package dev.proxima.proxy.render;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The node-wide settings of one family's rules, in both modes: the nft and the iptables translator
 * read the same record. Invalid values are configuration errors and are rejected here, at startup,
 * rather than producing a ruleset that {@code nft} or {@code iptables-restore} refuses.
 *
 * <p>The lists are normalized: CIDRs get their host bits cleared and ranges inside another one are
 * dropped (nft rejects nested ranges in interval sets; for matching a source they add nothing),
 * addresses are printed canonically, and duplicates are removed.
 *
 * @param clusterCidrs this family's pod CIDRs: traffic from outside them to a ClusterIP is
 *     masqueraded, traffic from inside them to an eTP=Local external address short-circuits to the
 *     Cluster endpoints. Empty, with no {@code podInterface}, turns local-traffic detection off.
 * @param masqueradeBit the bit of the packet mark that requests masquerading (kube-proxy's default
 *     is 14, mark 0x4000)
 * @param nodePortAddresses this node's addresses that accept NodePorts; empty means every local
 *     address except loopback
 * @param podInterface pod traffic is what arrives on this interface (kube-proxy's BridgeInterface
 *     and InterfaceNamePrefix modes), or null to tell it by {@code clusterCidrs}
 * @param nodePortsListed true when {@code --nodeport-addresses} restricts this family: NodePorts
 *     are accepted on {@code nodePortAddresses} only, on no address at all when it is empty (fail
 *     closed); false accepts them on every local address
 * @param countsLocality the rules count new connections by endpoint locality (node-wide and for the
 *     Service ports marked {@code observeLocality}); false ({@code --observe-locality=off}) leaves
 *     every counter out
 */
public record FamilySettings(
    IpFamily family,
    List<String> clusterCidrs,
    boolean masqueradeAll,
    int masqueradeBit,
    List<String> nodePortAddresses,
    PodInterface podInterface,
    boolean nodePortsListed,
    boolean countsLocality) {
  public static final int DEFAULT_MASQUERADE_BIT = 14;

  public FamilySettings {
    Objects.requireNonNull(family, "family");
    if (masqueradeBit < 0 || masqueradeBit > 31) {
      throw new IllegalArgumentException("masqueradeBit must be 0..31, got " + masqueradeBit);
    }
    List<Cidr> cidrs = new ArrayList<>();
    for (String text : List.copyOf(clusterCidrs)) {
      var cidr = Cidr.parse(text);
      if (cidr == null || cidr.family() != family) {
        throw new IllegalArgumentException("not an " + family.apiName() + " CIDR: " + text);
      }
      cidrs.add(cidr);
    }
    clusterCidrs = Cidr.outermost(cidrs).stream().map(Cidr::toString).toList();
    Set<String> addresses = new LinkedHashSet<>();
    for (String text : List.copyOf(nodePortAddresses)) {
      var bytes = IpAddress.literalBytes(text.trim());
      if (bytes == null || bytes.length != family.addressBytes()) {
        throw new IllegalArgumentException(
            "not an " + family.apiName() + " address (nodePortAddresses): " + text);
      }
      addresses.add(IpAddress.format(bytes));
    }
    nodePortAddresses = List.copyOf(addresses);
  }

  /** The defaults: no masqueradeAll, mark bit 14, NodePorts on every local address. */
  public static FamilySettings of(IpFamily family, List<String> clusterCidrs) {
    return new FamilySettings(
        family, clusterCidrs, false, DEFAULT_MASQUERADE_BIT, List.of(), null, false, true);
  }

  public FamilySettings withMasqueradeAll(boolean value) {
    return with(value, masqueradeBit, nodePortAddresses, podInterface, nodePortsListed);
  }

  public FamilySettings withMasqueradeBit(int value) {
    return with(masqueradeAll, value, nodePortAddresses, podInterface, nodePortsListed);
  }

  public FamilySettings withNodePortAddresses(List<String> value) {
    return with(masqueradeAll, masqueradeBit, value, podInterface, !value.isEmpty());
  }

  public FamilySettings withPodInterface(PodInterface value) {
    return with(masqueradeAll, masqueradeBit, nodePortAddresses, value, nodePortsListed);
  }

  public FamilySettings withNodePortsListed(boolean value) {
    return with(masqueradeAll, masqueradeBit, nodePortAddresses, podInterface, value);
  }

  public FamilySettings withCountsLocality(boolean value) {
    return new FamilySettings(
        family,
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortAddresses,
        podInterface,
        nodePortsListed,
        value);
  }

  public boolean detectsLocalTraffic() {
    return podInterface != null || !clusterCidrs.isEmpty();
  }

  /** The mark value, {@code 1 << masqueradeBit}, in hex as both tools print it: {@code 0x4000}. */
  public String masqueradeMark() {
    return "0x" + Long.toHexString(1L << masqueradeBit);
  }

  private FamilySettings with(
      boolean all, int bit, List<String> addresses, PodInterface pods, boolean listed) {
    return new FamilySettings(
        family, clusterCidrs, all, bit, addresses, pods, listed, countsLocality);
  }
}
