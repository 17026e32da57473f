package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.nftables.NftNames.CLUSTER_IPS;
import static dev.proxima.proxy.nftables.NftNames.MARK_FOR_MASQUERADE;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftSyntax;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.PodInterface;
import java.util.List;
import java.util.Optional;

/** The matches on where traffic comes from that the fixed table and the lb chains share. */
final class TrafficMatches {
  private TrafficMatches() {}

  /** First in every lb and sticky chain; none when pod traffic cannot be told apart. */
  static Optional<String> masqueradeClusterIp(FamilySettings config) {
    IpFamily family = config.family();
    String clusterIpMatch =
        NftSyntax.daddr(family) + " @" + CLUSTER_IPS + " jump " + MARK_FOR_MASQUERADE;
    if (config.masqueradeAll()) {
      return Optional.of(clusterIpMatch);
    }
    if (config.detectsLocalTraffic()) {
      return Optional.of(podTraffic(config, true) + " " + clusterIpMatch);
    }
    return Optional.empty();
  }

  static String podTraffic(FamilySettings config, boolean negated) {
    IpFamily family = config.family();
    String op = negated ? " != " : " ";
    PodInterface pods = config.podInterface();
    if (pods != null) {
      return "iifname" + op + "\"" + pods.name() + (pods.prefix() ? "*" : "") + "\"";
    }
    List<String> cidrs = config.clusterCidrs();
    String set = cidrs.size() == 1 ? cidrs.get(0) : "{ " + String.join(", ", cidrs) + " }";
    return NftSyntax.saddr(family) + op + set;
  }
}
