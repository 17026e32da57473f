package dev.proxima.proxy.selection;

import dev.proxima.proxy.model.Endpoint;
import java.util.List;
import java.util.Objects;

/**
 * The endpoints one Service port uses on this node, as kube-proxy's {@code CategorizeEndpoints}
 * returns them. Every list is immutable and sorted by IP (numerically, IPv4 before IPv6), then
 * port.
 *
 * @param clusterEndpoints the endpoints for Cluster traffic policy, topology applied; {@code null}
 *     when the Service never uses the Cluster list (internalTrafficPolicy Local without external
 *     access) or has no endpoints at all; empty when used but nothing is usable
 * @param localEndpoints the endpoints on this node for Local traffic policy, never
 *     topology-filtered; {@code null} when the Service never uses the Local list, has no endpoints
 *     at all, or has no ready or serving-terminating endpoint on this node
 * @param allReachableEndpoints every endpoint reachable from this node: the union of the two lists,
 *     de-duplicated by {@code ip:port}; never {@code null}, empty when none
 * @param hasAnyEndpoints whether the Service has a usable endpoint anywhere in the cluster; may be
 *     true while {@code allReachableEndpoints} is empty (only remote endpoints under a Local
 *     policy)
 * @param topology the topology level that filtered the Cluster list; {@link TopologyLevel#NONE}
 *     when it is unfiltered or unused
 * @param reason one deterministic sentence for {@code explain}: why this level was chosen, why each
 *     higher level was skipped, and, when the Local list is used, what it holds
 */
public record EndpointSelection(
    List<Endpoint> clusterEndpoints,
    List<Endpoint> localEndpoints,
    List<Endpoint> allReachableEndpoints,
    boolean hasAnyEndpoints,
    TopologyLevel topology,
    String reason) {

  public EndpointSelection {
    clusterEndpoints = clusterEndpoints == null ? null : List.copyOf(clusterEndpoints);
    localEndpoints = localEndpoints == null ? null : List.copyOf(localEndpoints);
    allReachableEndpoints =
        List.copyOf(Objects.requireNonNull(allReachableEndpoints, "allReachableEndpoints"));
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(reason, "reason");
  }
}
