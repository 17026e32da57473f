package dev.proxima.proxy.render;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.route.PortRoute;
import dev.proxima.proxy.route.RouteDecision;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One Service port with the endpoint lists that endpoint selection chose for it: the input of the
 * renderer, which renders them as given.
 *
 * @param clusterEndpoints the endpoints for Cluster traffic policy, in load-balancing order; null
 *     when the list is not used
 * @param localEndpoints the endpoints for Local traffic policy; null when not used or none
 * @param hasAnyEndpoints whether the Service has usable endpoints anywhere; false makes every
 *     address of the port reject, true with an empty Local list makes that traffic drop
 * @param spill the Cluster list's zone spill-over: {@link ZoneSpill#NONE} routes as without it
 */
public record ServicePortRules(
    ServicePort port,
    List<Endpoint> clusterEndpoints,
    List<Endpoint> localEndpoints,
    boolean hasAnyEndpoints,
    ZoneSpill spill) {
  public ServicePortRules {
    Objects.requireNonNull(port, "port");
    clusterEndpoints = clusterEndpoints == null ? null : List.copyOf(clusterEndpoints);
    localEndpoints = localEndpoints == null ? null : List.copyOf(localEndpoints);
    spill = spill == null ? ZoneSpill.NONE : spill;
  }

  /** A port without zone spill-over. */
  public ServicePortRules(
      ServicePort port,
      List<Endpoint> clusterEndpoints,
      List<Endpoint> localEndpoints,
      boolean hasAnyEndpoints) {
    this(port, clusterEndpoints, localEndpoints, hasAnyEndpoints, ZoneSpill.NONE);
  }

  public List<Endpoint> clusterOrEmpty() {
    return clusterEndpoints == null ? List.of() : clusterEndpoints;
  }

  public List<Endpoint> localOrEmpty() {
    return localEndpoints == null ? List.of() : localEndpoints;
  }

  /** This port's routing decision; empty when the port cannot be routed at all. */
  public Optional<PortRoute> route(RouteDecision decision) {
    return Optional.ofNullable(
        decision.decide(port, clusterOrEmpty(), localOrEmpty(), hasAnyEndpoints, spill));
  }
}
