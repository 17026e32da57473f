package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.util.ArrayList;
import java.util.List;

/** The few facts about endpoints the Auto heuristic reads, with upstream's null handling. */
final class EndpointFacts {
  private EndpointFacts() {}

  /** Upstream's EndpointReady: ready only when the condition is present and true. */
  static boolean isReady(Endpoint endpoint) {
    return endpoint.getConditions() != null
        && Boolean.TRUE.equals(endpoint.getConditions().getReady());
  }

  static boolean hasZone(Endpoint endpoint) {
    return endpoint.getZone() != null && !endpoint.getZone().isEmpty();
  }

  static List<Endpoint> endpoints(EndpointSlice slice) {
    return slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
  }

  static int readyCount(EndpointSlice slice) {
    return (int) endpoints(slice).stream().filter(EndpointFacts::isReady).count();
  }

  /** The only hints Auto writes: a single zone, and never {@code forNodes}. */
  static EndpointHints zoneHint(String zone) {
    return new EndpointHints(null, new ArrayList<>(List.of(new ForZone(zone))));
  }
}
