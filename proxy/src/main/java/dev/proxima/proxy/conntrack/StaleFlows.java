package dev.proxima.proxy.conntrack;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.plan.NodePlanner;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds UDP flows that would keep sending a client's datagrams to an endpoint that is gone, or past
 * a Service that was rejecting them before it had endpoints. UDP has no connection to break, so
 * without this a client can talk to a removed endpoint until its conntrack entry times out. Like
 * upstream's reconciler it ignores traffic policy and topology: any serving endpoint of the Service
 * port keeps its flows.
 */
public final class StaleFlows {
  private StaleFlows() {}

  /**
   * What to delete: flows to this destination (IP, or NodePort when ip is null) answered by
   * replySource.
   */
  public record Deletion(String serviceIp, int nodePort, String replySource)
      implements Comparable<Deletion> {
    @Override
    public int compareTo(Deletion other) {
      return toString().compareTo(other.toString());
    }
  }

  /**
   * The flows whose endpoint no longer serves their Service port, and every flow to a UDP Service
   * address or NodePort the previous plan had and this one does not (the Service was deleted, or
   * lost that port).
   *
   * @param previous empty when unknown (the first sync after a restart keeps every entry whose
   *     endpoint still serves)
   */
  public static Set<Deletion> find(
      List<UdpFlow> flows,
      List<NodePlanner.PlannedPort> ports,
      List<NodePlanner.PlannedPort> previous) {
    var deletions = new TreeSet<Deletion>();
    if (!previous.isEmpty()) {
      var current = udpAddresses(ports);
      var currentNodePorts = udpNodePorts(ports);
      var gone = udpAddresses(previous);
      gone.removeAll(current);
      var goneNodePorts = udpNodePorts(previous);
      goneNodePorts.removeAll(currentNodePorts);
      for (var flow : flows) {
        if (gone.contains(flow.originalDestination() + ":" + flow.originalDestinationPort())) {
          deletions.add(new Deletion(flow.originalDestination(), 0, flow.replySource()));
        } else if (goneNodePorts.contains(flow.originalDestinationPort())
            && !current.contains(flow.originalDestination() + ":" + flow.originalDestinationPort())
            && !flow.originalDestination().equals(flow.replySource())) {
          // Only a DNATed flow: a NodePort's own entries were translated to an endpoint.
          deletions.add(new Deletion(null, flow.originalDestinationPort(), flow.replySource()));
        }
      }
    }
    deletions.addAll(findAgainstCurrent(flows, ports));
    return deletions;
  }

  private static Set<String> udpAddresses(List<NodePlanner.PlannedPort> ports) {
    var addresses = new HashSet<String>();
    for (var planned : ports) {
      if (planned.port().protocol() == Protocol.UDP) {
        for (var ip : addressesOf(planned.port())) {
          addresses.add(ip + ":" + planned.port().port());
        }
      }
    }
    return addresses;
  }

  private static Set<Integer> udpNodePorts(List<NodePlanner.PlannedPort> ports) {
    var nodePorts = new HashSet<Integer>();
    for (var planned : ports) {
      if (planned.port().protocol() == Protocol.UDP && planned.port().nodePort() != 0) {
        nodePorts.add(planned.port().nodePort());
      }
    }
    return nodePorts;
  }

  private static Set<Deletion> findAgainstCurrent(
      List<UdpFlow> flows, List<NodePlanner.PlannedPort> ports) {
    Map<String, Set<String>> servingByAddress = new HashMap<>();
    Map<Integer, Set<String>> servingByNodePort = new HashMap<>();
    for (var planned : ports) {
      var port = planned.port();
      if (port.protocol() != Protocol.UDP) {
        continue;
      }
      var serving = new HashSet<String>();
      for (Endpoint endpoint : planned.endpoints()) {
        if (endpoint.serving()) {
          serving.add(endpoint.ip());
        }
      }
      for (var ip : addressesOf(port)) {
        servingByAddress
            .computeIfAbsent(ip + ":" + port.port(), k -> new HashSet<>())
            .addAll(serving);
      }
      if (port.nodePort() != 0) {
        servingByNodePort.computeIfAbsent(port.nodePort(), k -> new HashSet<>()).addAll(serving);
      }
    }
    var deletions = new TreeSet<Deletion>();
    for (var flow : flows) {
      var byAddress =
          servingByAddress.get(flow.originalDestination() + ":" + flow.originalDestinationPort());
      if (byAddress != null && !byAddress.contains(flow.replySource())) {
        deletions.add(new Deletion(flow.originalDestination(), 0, flow.replySource()));
      }
      var byNodePort = servingByNodePort.get(flow.originalDestinationPort());
      if (byAddress == null && byNodePort != null && !byNodePort.contains(flow.replySource())) {
        deletions.add(new Deletion(null, flow.originalDestinationPort(), flow.replySource()));
      }
    }
    return deletions;
  }

  private static List<String> addressesOf(dev.proxima.proxy.model.ServicePort port) {
    var addresses = new java.util.ArrayList<String>();
    addresses.add(port.clusterIp());
    addresses.addAll(port.externalIps());
    addresses.addAll(port.loadBalancerIps());
    return addresses;
  }
}
