package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.SourceRanges;
import java.util.ArrayList;
import java.util.List;

/**
 * Widens a load balancer's source ranges for traffic a node sends to it. Some cloud load balancers
 * put their IP on the node itself, so a node reaching the load-balancer IP arrives with that IP as
 * its source, not the node's. When the Service's ranges admit one of this node's addresses the user
 * meant the node to get through, so the load-balancer IPs are admitted as sources too, as
 * kube-proxy does in both its modes. Ranges that admit no node address stay exactly as written.
 */
final class NodeSourcedLoadBalancer {
  private NodeSourcedLoadBalancer() {}

  static ServicePort admitLoadBalancerSources(ServicePort port, List<String> nodeAddresses) {
    if (port.loadBalancerIps().isEmpty() || port.loadBalancerSourceRanges().isEmpty()) {
      return port;
    }
    var ranges = SourceRanges.of(port.loadBalancerSourceRanges());
    var nodes = hosts(nodeAddresses);
    // The ranges are disjoint and few node addresses: ranges x addresses, without parsing.
    boolean admitsNode =
        ranges.cidrs().stream().anyMatch(range -> nodes.stream().anyMatch(range::contains));
    if (!admitsNode) {
      return port;
    }
    return port.withSourceRanges(ranges.plus(hosts(port.loadBalancerIps())));
  }

  private static List<Cidr> hosts(List<String> addresses) {
    var result = new ArrayList<Cidr>(addresses.size());
    for (var address : addresses) {
      var ip = IpAddress.parse(address);
      if (ip != null) {
        result.add(Cidr.parse(ip + (ip.family() == IpFamily.IPV6 ? "/128" : "/32")));
      }
    }
    return result;
  }
}
