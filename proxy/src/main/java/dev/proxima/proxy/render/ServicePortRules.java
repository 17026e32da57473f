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
 * One Service port with the endpoint lists selection chose for it: what both renderers render.
 *
 * @param clusterEndpoints in load-balancing order; null when not used
 * @param localEndpoints null when not used or none
 * @param hasAnyEndpoints false makes every address reject; true with no Local list makes it drop
 * @param spill the Cluster list's zone spill-over
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

  /** Empty when the port cannot be routed at all. */
  public Optional<PortRoute> route(RouteDecision decision) {
    return Optional.ofNullable(
        decision.decide(port, clusterOrEmpty(), localOrEmpty(), hasAnyEndpoints, spill));
  }
}
