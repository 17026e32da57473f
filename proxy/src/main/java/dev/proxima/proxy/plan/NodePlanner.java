package dev.proxima.proxy.plan;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.catalog.ServiceCatalog;
import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.SourceRanges;
import dev.proxima.proxy.selection.EndpointSelection;
import dev.proxima.proxy.selection.EndpointSelector;
import dev.proxima.proxy.selection.ZoneSpillChoice;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What one node's proxy programs for one IP family: every Service port it handles, the endpoints it
 * chose for it and why. Pure; shared by the live proxy, {@code explain} and {@code render}.
 */
public final class NodePlanner {
  private NodePlanner() {}

  /**
   * @param demand the zone demand the port was planned with, to plan it again the same way
   * @param spill its zone spill-over on this node
   */
  public record PlannedPort(
      ServicePort port,
      List<Endpoint> endpoints,
      EndpointSelection selection,
      TopologyFallback fallback,
      ZoneDemand demand,
      ZoneSpillChoice spill) {
    public PlannedPort {
      endpoints = List.copyOf(endpoints);
    }
  }

  /**
   * Everything planned for one family, with the input problems met on the way.
   *
   * @param collisions address keys two Service ports claim, and which one keeps each
   */
  public record FamilyPlan(
      IpFamily family,
      String nodeName,
      String nodeZone,
      List<PlannedPort> ports,
      List<String> skipped,
      List<String> warnings,
      List<AddressOwners.Collision> collisions) {
    public FamilyPlan {
      ports = List.copyOf(ports);
      skipped = List.copyOf(skipped);
      warnings = List.copyOf(warnings);
      collisions = List.copyOf(collisions);
    }
  }

  /**
   * The plan for every Service, with each address key given to its owner ({@link AddressOwners}):
   * what a full sync, {@code explain} and {@code render} program.
   *
   * @param node this proxy's Node, or null when it is not known (then no zone hints match)
   * @param policy what the proxy knows of the node beyond its Node object ({@link
   *     AddressPolicy#ofNode} when nothing more)
   * @param demand the zone demand that zone spill-over follows ({@link ZoneDemand#unknown} for
   *     none)
   */
  public static FamilyPlan plan(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      Collection<Service> services,
      Collection<EndpointSlice> slices,
      AddressPolicy policy,
      ZoneDemand demand) {
    var claimed =
        planClaims(family, nodeName, node, serviceProxyName, services, slices, policy, demand);
    var store = new PlanStore(family, nodeName);
    var ports = store.replaceAll(claimed.ports(), claimed.nodeZone());
    var collisions = store.collisions();
    var warnings = new ArrayList<>(claimed.warnings());
    collisions.forEach(collision -> warnings.add("address collision " + collision));
    return new FamilyPlan(
        family, nodeName, claimed.nodeZone(), ports, claimed.skipped(), warnings, collisions);
  }

  /**
   * The plan for every Service as each claims its addresses, before {@link AddressOwners} decides
   * contested keys: the live proxy keeps these to decide again when a claimant changes.
   */
  public static FamilyPlan planClaims(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      Collection<Service> services,
      Collection<EndpointSlice> slices,
      AddressPolicy policy,
      ZoneDemand demand) {
    var zone = zoneOf(node);
    var catalog =
        ServiceCatalog.build(
            services, slices, new ServiceCatalog.Options(nodeName, family, serviceProxyName, zone));
    var nodeAddresses = NodeIps.all(node);
    var warnings = new ArrayList<>(catalog.warnings());
    var entries = policy.apply(catalog.entries(), warnings);
    var ports =
        entries.stream()
            .map(
                entry ->
                    planned(
                        admitLoadBalancerSources(entry.port(), nodeAddresses),
                        entry.endpoints(),
                        nodeName,
                        zone,
                        demand))
            .toList();
    return new FamilyPlan(family, nodeName, zone, ports, catalog.skipped(), warnings, List.of());
  }

  /** The claims of one Service's ports on this node; none when it is gone or not handled here. */
  public static FamilyPlan planServiceClaims(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      Service service,
      Collection<EndpointSlice> slices,
      AddressPolicy policy,
      ZoneDemand demand) {
    return planClaims(
        family,
        nodeName,
        node,
        serviceProxyName,
        service == null ? List.of() : List.of(service),
        slices,
        policy,
        demand);
  }

  /**
   * {@code planned} as its owners let it be programmed, or null when it may not be at all. The
   * endpoint choice is made again when addresses were taken away: without external addresses a port
   * may not need its Cluster list any more.
   */
  public static PlannedPort owned(
      PlannedPort planned, AddressOwners owners, String nodeName, String nodeZone) {
    var port = owners.effective(planned.port());
    if (port == planned.port() || port == null) {
      return port == null ? null : planned;
    }
    return planned(port, planned.endpoints(), nodeName, nodeZone, planned.demand());
  }

  private static PlannedPort planned(
      ServicePort port, List<Endpoint> endpoints, String nodeName, String zone, ZoneDemand demand) {
    var selection = EndpointSelector.select(endpoints, port, nodeName, zone);
    var fallback =
        TopologyFallback.classify(
            port.trafficDistribution(), selection.topology(), endpoints, nodeName, zone);
    var spill = ZoneSpillChoice.choose(port, endpoints, selection, zone, demand);
    return new PlannedPort(port, endpoints, selection, fallback, demand, spill);
  }

  /**
   * Widens a load balancer's source ranges for traffic a node sends to it. Some cloud load
   * balancers put their IP on the node itself, so a node reaching the load-balancer IP arrives with
   * that IP as its source, not the node's. When the Service's ranges admit one of this node's
   * addresses the user meant the node to get through, so the load-balancer IPs are admitted as
   * sources too, as kube-proxy does in both its modes. Ranges that admit no node address stay
   * exactly as written.
   */
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
    return addresses.stream()
        .map(IpAddress::parse)
        .filter(Objects::nonNull)
        .map(ip -> Cidr.parse(ip + (ip.family() == IpFamily.IPV6 ? "/128" : "/32")))
        .toList();
  }

  /** The Node's zone label, or null when it has none (or the Node is not known). */
  public static String zoneOf(Node node) {
    if (node == null || node.getMetadata() == null || node.getMetadata().getLabels() == null) {
      return null;
    }
    var zone = node.getMetadata().getLabels().get(Labels.ZONE);
    return zone == null || zone.isEmpty() ? null : zone;
  }
}
