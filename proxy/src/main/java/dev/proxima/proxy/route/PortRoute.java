package dev.proxima.proxy.route;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import java.util.List;

/**
 * The routing decision for one Service port in one family, the same whichever tool programs it: the
 * nft and the iptables translators only spell it. Every address, range and endpoint in it is
 * canonical, of the family, and usable; what was not is named in the warnings of {@link
 * RouteDecision}.
 *
 * @param clusterIp the ClusterIP, canonical; null when it is not an address of the family (the port
 *     then has no internal entry point)
 * @param nodePort the NodePort, 0 when the port has none
 * @param firewall true when the load-balancer IPs accept {@code allowedSources} only: the Service
 *     restricts its sources and has load-balancer IPs
 * @param allowedSources the sources the firewall lets through, outermost ranges only; empty with
 *     {@code firewall} means no source at all (a restriction nobody could read fails closed)
 * @param cluster the Cluster endpoint list, validated, without duplicates, in load-balancing order
 * @param local the Local endpoint list, likewise
 * @param anyEndpoints the Service has usable endpoints somewhere (false makes every entry point
 *     reject)
 * @param internal the verdict for ClusterIP traffic
 * @param external the verdict for externalIP, load-balancer IP and NodePort traffic
 * @param externalLocal externalTrafficPolicy: Local applies (the port is reachable from outside):
 *     external traffic keeps its source, so it is not masqueraded, and pod or node traffic to an
 *     external address short-circuits to the Cluster list
 * @param affinitySeconds the ClientIP affinity timeout in whole seconds (at least 1), 0 without
 *     affinity
 * @param spill the Cluster list's zone spill-over, its spread list validated like the others;
 *     {@link ZoneSpill#NONE} when nothing spills
 */
public record PortRoute(
    ServicePort port,
    String clusterIp,
    List<String> externalIps,
    List<String> loadBalancerIps,
    int nodePort,
    boolean firewall,
    List<Cidr> allowedSources,
    List<Endpoint> cluster,
    List<Endpoint> local,
    boolean anyEndpoints,
    Verdict internal,
    Verdict external,
    boolean externalLocal,
    long affinitySeconds,
    ZoneSpill spill) {

  public PortRoute {
    externalIps = List.copyOf(externalIps);
    loadBalancerIps = List.copyOf(loadBalancerIps);
    allowedSources = List.copyOf(allowedSources);
    cluster = List.copyOf(cluster);
    local = List.copyOf(local);
    spill = spill == null ? ZoneSpill.NONE : spill;
  }

  /** Whether the Cluster list spills: a weighted choice goes in front of it. */
  public boolean spills() {
    return spill.spills() && !cluster.isEmpty();
  }

  public boolean externallyAccessible() {
    return nodePort != 0 || !externalIps.isEmpty() || !loadBalancerIps.isEmpty();
  }

  /** The endpoint list a verdict dispatches to; empty for drop and reject. */
  public List<Endpoint> endpoints(Verdict verdict) {
    return switch (verdict) {
      case CLUSTER_ENDPOINTS -> cluster;
      case LOCAL_ENDPOINTS -> local;
      case DROP, REJECT -> List.of();
    };
  }

  /** Whether the Cluster list is reached from any entry point (eTP=Local short-circuits too). */
  public boolean usesCluster() {
    return !cluster.isEmpty() && port.usesClusterEndpoints();
  }

  public boolean usesLocal() {
    return !local.isEmpty() && port.usesLocalEndpoints();
  }

  public boolean sticky() {
    return affinitySeconds > 0;
  }
}
