package dev.proxima.controller.hints;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Upstream's heuristic for PreferClose, PreferSameZone and PreferSameNode: each ready endpoint is
 * hinted to its own zone and, for PreferSameNode, its own node.
 *
 * <p>Unready endpoints are skipped entirely, so whatever hints they carry stay: upstream does the
 * same, and writing anything else would make the two controllers disagree. Hints must hold exactly
 * one entry; a list of two, even with the right one in it, is rewritten. A zone or node that is
 * present but empty still counts as present, because upstream tests for absence only.
 */
final class SameTopologyHints implements HintHeuristic {
  private final boolean nodeHints;

  SameTopologyHints(boolean nodeHints) {
    this.nodeHints = nodeHints;
  }

  @Override
  public boolean needsUpdate(List<Endpoint> endpoints) {
    return endpoints.stream().filter(HintHeuristic::isReady).anyMatch(this::hasWrongHints);
  }

  @Override
  public void apply(List<Endpoint> endpoints) {
    for (var endpoint : endpoints) {
      if (!HintHeuristic.isReady(endpoint)) {
        continue;
      }
      endpoint.setHints(desiredHints(endpoint));
    }
  }

  private boolean hasWrongHints(Endpoint endpoint) {
    var hints = endpoint.getHints();
    var zones = hints == null ? List.<ForZone>of() : nullToEmpty(hints.getForZones());
    var nodes = hints == null ? List.<ForNode>of() : nullToEmpty(hints.getForNodes());
    boolean zoneWrong =
        endpoint.getZone() != null
            ? hints == null || !isSingle(zones.stream().map(ForZone::getName), endpoint.getZone())
            : !zones.isEmpty();
    if (zoneWrong) {
      return true;
    }
    return wantsNodeHint(endpoint)
        ? hints == null || !isSingle(nodes.stream().map(ForNode::getName), endpoint.getNodeName())
        : !nodes.isEmpty();
  }

  private EndpointHints desiredHints(Endpoint endpoint) {
    var zone = endpoint.getZone();
    boolean node = wantsNodeHint(endpoint);
    if (zone == null && !node) {
      return null;
    }
    var hints = new EndpointHints();
    if (zone != null) {
      hints.setForZones(List.of(new ForZone(zone)));
    }
    if (node) {
      hints.setForNodes(List.of(new ForNode(endpoint.getNodeName())));
    }
    return hints;
  }

  private boolean wantsNodeHint(Endpoint endpoint) {
    return nodeHints && endpoint.getNodeName() != null;
  }

  private static boolean isSingle(Stream<String> names, String expected) {
    var all = names.toList();
    return all.size() == 1 && Objects.equals(all.get(0), expected);
  }

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
