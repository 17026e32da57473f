package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import java.util.ArrayList;
import java.util.List;

/** What a Node says of its addresses and its pods' ranges, read as kube-proxy reads them. */
public final class NodeIps {
  private NodeIps() {}

  /** Every address of status.addresses that is an IP, in order; empty for a missing Node. */
  public static List<String> all(Node node) {
    return addresses(node).stream()
        .map(NodeAddress::getAddress)
        .filter(a -> a != null && IpFamily.of(a) != null)
        .toList();
  }

  /**
   * The node's primary IPs ({@code --nodeport-addresses=primary}): per family, the first {@code
   * InternalIP}, or the first {@code ExternalIP} when it has none, as kube-proxy picks the node's
   * IPs. Empty for a missing Node.
   */
  public static List<String> primary(Node node) {
    var result = new ArrayList<String>();
    for (var family : IpFamily.values()) {
      first(node, "InternalIP", family)
          .or(() -> first(node, "ExternalIP", family))
          .ifPresent(result::add);
    }
    return List.copyOf(result);
  }

  /**
   * {@code spec.podCIDRs}, or the older single {@code spec.podCIDR} when the list is unset, the
   * input of {@code --detect-local-mode=NodeCIDR}; empty for a missing Node. Values are returned as
   * written: {@link LocalDetection} skips those that are not CIDRs.
   */
  public static List<String> podCidrs(Node node) {
    if (node == null || node.getSpec() == null) {
      return List.of();
    }
    var spec = node.getSpec();
    var result = new ArrayList<String>();
    if (spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()) {
      spec.getPodCIDRs().stream().filter(c -> c != null && !c.isBlank()).forEach(result::add);
    } else if (spec.getPodCIDR() != null && !spec.getPodCIDR().isBlank()) {
      result.add(spec.getPodCIDR());
    }
    return List.copyOf(result);
  }

  private static java.util.Optional<String> first(Node node, String type, IpFamily family) {
    return addresses(node).stream()
        .filter(a -> type.equals(a.getType()))
        .map(NodeAddress::getAddress)
        .filter(a -> a != null && IpFamily.of(a) == family)
        .findFirst();
  }

  static List<NodeAddress> addresses(Node node) {
    if (node == null || node.getStatus() == null || node.getStatus().getAddresses() == null) {
      return List.of();
    }
    return node.getStatus().getAddresses().stream().filter(a -> a != null).toList();
  }
}
