package dev.proxima.controller.hints;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import java.util.List;

/**
 * Decides the hints of individual endpoints. Implementations are upstream's two trafficdist
 * heuristics; they look at nothing but the endpoint itself.
 */
sealed interface HintHeuristic permits ClearHints, SameTopologyHints {
  /** True when an endpoint of the slice carries hints this heuristic would write differently. */
  boolean needsUpdate(List<Endpoint> endpoints);

  /**
   * Rewrites the hints of the given endpoints in place; callers pass copies, never cache objects.
   */
  void apply(List<Endpoint> endpoints);

  static boolean isReady(Endpoint endpoint) {
    return endpoint.getConditions() != null
        && Boolean.TRUE.equals(endpoint.getConditions().getReady());
  }
}
