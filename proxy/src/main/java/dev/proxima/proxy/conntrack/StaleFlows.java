package dev.proxima.proxy.conntrack;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.plan.NodePlanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds UDP flows that would keep a client's datagrams on an endpoint that is gone, or past a
 * Service that rejected them before it had endpoints, until the entry times out. Like upstream's
 * reconciler it ignores traffic policy and topology: any serving endpoint keeps its flows.
 */
public final class StaleFlows {
  private StaleFlows() {}

  /**
   * One UDP conntrack entry, reduced to where the client sent it and who answers (after DNAT, the
   * endpoint; without DNAT, the original destination).
   */
  public record UdpFlow(
      String originalDestination, int originalDestinationPort, String replySource) {}

  /** Parses {@code conntrack -L -p udp} output; lines it does not understand are skipped. */
  public static List<UdpFlow> parse(String output) {
    var flows = new ArrayList<UdpFlow>();
    for (var line : output.lines().toList()) {
      var fields = line.trim().split("\\s+");
      if (fields.length == 0 || !fields[0].equals("udp")) {
        continue;
      }
      String dst = null;
      String dport = null;
      String replySrc = null;
      int sources = 0;
      for (var field : fields) {
        if (field.startsWith("src=")) {
          sources++;
          if (sources == 2) {
            replySrc = field.substring(4);
          }
        } else if (field.startsWith("dst=") && dst == null) {
          dst = field.substring(4);
        } else if (field.startsWith("dport=") && dport == null) {
          dport = field.substring(6);
        }
      }
      if (dst == null || dport == null || replySrc == null) {
        continue;
      }
      try {
        flows.add(new UdpFlow(dst, Integer.parseInt(dport), replySrc));
      } catch (NumberFormatException malformed) {
        // conntrack printed something unexpected; the next reconcile sees the flow again.
      }
    }
    return flows;
  }

  /** Flows to this destination (IP, or NodePort when the IP is null) answered by replySource. */
  public record Deletion(String serviceIp, int nodePort, String replySource)
      implements Comparable<Deletion> {
    @Override
    public int compareTo(Deletion other) {
      return toString().compareTo(other.toString());
    }
  }

  /**
   * The flows whose endpoint no longer serves their Service port, and every flow to a UDP Service
   * address or NodePort {@code previous} had and this plan lacks; with {@code previous} empty (a
   * restart), every entry whose endpoint still serves stays.
   */
  public static Set<Deletion> find(
      List<UdpFlow> flows,
      List<NodePlanner.PlannedPort> ports,
      List<NodePlanner.PlannedPort> previous) {
    var now = Serving.of(ports);
    var before = Serving.of(previous);
    var deletions = new TreeSet<Deletion>();
    for (var flow : flows) {
      var address = flow.originalDestination() + ":" + flow.originalDestinationPort();
      var byAddress = now.byAddress().get(address);
      if (byAddress != null) {
        if (!byAddress.contains(flow.replySource())) {
          deletions.add(new Deletion(flow.originalDestination(), 0, flow.replySource()));
        }
        continue;
      }
      boolean addressGone = before.byAddress().containsKey(address);
      if (addressGone) {
        deletions.add(new Deletion(flow.originalDestination(), 0, flow.replySource()));
      }
      var byNodePort = now.byNodePort().get(flow.originalDestinationPort());
      if (byNodePort != null
          ? !byNodePort.contains(flow.replySource())
          // Only a DNATed flow: a NodePort's own entries were translated to an endpoint.
          : !addressGone
              && before.byNodePort().containsKey(flow.originalDestinationPort())
              && !flow.originalDestination().equals(flow.replySource())) {
        deletions.add(new Deletion(null, flow.originalDestinationPort(), flow.replySource()));
      }
    }
    return deletions;
  }

  /** The serving endpoints' IPs of a plan's UDP ports, by Service address and by NodePort. */
  private record Serving(Map<String, Set<String>> byAddress, Map<Integer, Set<String>> byNodePort) {
    static Serving of(List<NodePlanner.PlannedPort> ports) {
      var serving = new Serving(new HashMap<>(), new HashMap<>());
      for (var planned : ports) {
        var port = planned.port();
        if (port.protocol() != Protocol.UDP) {
          continue;
        }
        var ips = new HashSet<String>();
        for (Endpoint endpoint : planned.endpoints()) {
          if (endpoint.serving()) {
            ips.add(endpoint.ip());
          }
        }
        var addresses = new ArrayList<String>(port.externalIps());
        addresses.add(port.clusterIp());
        addresses.addAll(port.loadBalancerIps());
        for (var ip : addresses) {
          serving
              .byAddress
              .computeIfAbsent(ip + ":" + port.port(), k -> new HashSet<>())
              .addAll(ips);
        }
        if (port.nodePort() != 0) {
          serving.byNodePort.computeIfAbsent(port.nodePort(), k -> new HashSet<>()).addAll(ips);
        }
      }
      return serving;
    }
  }
}
