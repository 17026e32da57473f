package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpAddress;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The InternalIP and ExternalIP addresses (both families) of every Node in the cluster, each with
 * the Node it belongs to, and every Node's pod CIDRs. Immutable and compared by value: when they
 * change, every Service is judged again.
 *
 * <p>Another node's address is no more a tenant's to take than this node's: an externalIP on it
 * would catch this node's traffic to that node (the API server reaching a kubelet, say), and an
 * endpoint on it at a NodePort would send traffic round between nodes until conntrack fills. Nor is
 * a pod on another node: an externalIP on its address would catch this node's traffic to it,
 * whether or not the operator set {@code --cluster-cidr}.
 */
public record ClusterNodeAddresses(Map<IpAddress, String> nodeByAddress, Set<String> podCidrs) {
  public static final ClusterNodeAddresses NONE = new ClusterNodeAddresses(Map.of(), Set.of());

  /** The addresses of {@code nodes}; an address two Nodes give is told as the first name's. */
  public static ClusterNodeAddresses of(Collection<Node> nodes) {
    var result = new HashMap<IpAddress, String>();
    var ranges = new HashSet<String>();
    for (var node : nodes) {
      if (node == null || node.getMetadata() == null || node.getMetadata().getName() == null) {
        continue;
      }
      var name = node.getMetadata().getName();
      for (var ip : addressesOf(node)) {
        result.merge(ip, name, (a, b) -> a.compareTo(b) <= 0 ? a : b);
      }
      ranges.addAll(NodeIps.podCidrs(node));
    }
    return result.isEmpty() && ranges.isEmpty()
        ? NONE
        : new ClusterNodeAddresses(Map.copyOf(result), Set.copyOf(ranges));
  }

  /**
   * Whether a Node update changes what this class holds: its addresses or pod CIDRs, not a
   * heartbeat.
   */
  public static boolean changes(Node previous, Node current) {
    return !addressesOf(previous).equals(addressesOf(current))
        || !NodeIps.podCidrs(previous).equals(NodeIps.podCidrs(current));
  }

  /**
   * The InternalIP and ExternalIP addresses of one Node; empty for a missing Node. What tells a
   * Node update that changes addresses from a heartbeat.
   */
  public static Set<IpAddress> addressesOf(Node node) {
    return NodeIps.addresses(node).stream()
        .filter(address -> counts(address.getType()))
        .map(address -> IpAddress.parse(address.getAddress()))
        .filter(Objects::nonNull)
        .collect(Collectors.toSet());
  }

  private static boolean counts(String type) {
    return "InternalIP".equals(type) || "ExternalIP".equals(type);
  }

  /** The name of the Node {@code address} belongs to, or null when it is no Node's. */
  public String nodeOf(IpAddress address) {
    return address == null ? null : nodeByAddress.get(address);
  }

  public boolean isEmpty() {
    return nodeByAddress.isEmpty();
  }

  @Override
  public String toString() {
    return nodeByAddress.size() + " node addresses, " + podCidrs.size() + " pod CIDRs";
  }
}
