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
 * The node-wide settings of one family's rules, in both modes. Invalid values are rejected here, at
 * startup, rather than making a ruleset the tools refuse. CIDRs are normalized (host bits cleared,
 * nested ranges dropped: nft rejects them in interval sets), addresses canonical and distinct.
 *
 * @param clusterCidrs this family's pod CIDRs: traffic from outside them to a ClusterIP is
 *     masqueraded, from inside them to an eTP=Local external address goes to the Cluster endpoints.
 *     Empty, with no {@code podInterface}, turns local-traffic detection off.
 * @param masqueradeBit the mark bit requesting masquerade (kube-proxy's default 14, 0x4000)
 * @param podInterface pod traffic is what arrives on it, or null to tell it by {@code clusterCidrs}
 * @param nodePortsListed whether {@code --nodeport-addresses} restricts this family: NodePorts are
 *     then accepted on {@code nodePortAddresses} only, on none when it is empty (fail closed)
 * @param countsLocality whether the rules count new connections by endpoint locality
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

  /** In hex as both tools print it: {@code 0x4000}. */
  public String masqueradeMark() {
    return "0x" + Long.toHexString(1L << masqueradeBit);
  }

  private FamilySettings with(
      boolean all, int bit, List<String> addresses, PodInterface pods, boolean listed) {
    return new FamilySettings(
        family, clusterCidrs, all, bit, addresses, pods, listed, countsLocality);
  }
}
