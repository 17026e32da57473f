package dev.proxima.controller.hints;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import java.util.List;

/**
 * Upstream's default heuristic, used when no supported value asks for hints: every endpoint, ready
 * or not, loses its hints. An empty hints object counts as hints, as it does upstream.
 */
final class ClearHints implements HintHeuristic {
  static final ClearHints INSTANCE = new ClearHints();

  private ClearHints() {}

  @Override
  public boolean needsUpdate(List<Endpoint> endpoints) {
    return endpoints.stream().anyMatch(endpoint -> endpoint.getHints() != null);
  }

  @Override
  public void apply(List<Endpoint> endpoints) {
    endpoints.forEach(endpoint -> endpoint.setHints(null));
  }
}
