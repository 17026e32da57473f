package dev.proxima.proxy.selection;

import dev.proxima.model.Labels;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.ServicePort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Chooses the endpoints of one Service port for this node with the semantics of kube-proxy's {@code
 * CategorizeEndpoints} (pkg/proxy/topology.go, the revision with PreferSameNode, whose feature gate
 * is GA and therefore always on here).
 *
 * <p>In order:
 *
 * <ol>
 *   <li>No endpoints at all: both lists absent, nothing reachable, no endpoints.
 *   <li>If the Service uses the Cluster list, pick a topology level from the hints of the
 *       <em>ready</em> endpoints: PreferSameNode when every ready endpoint has a node hint and at
 *       least one names this node; otherwise PreferSameZone when every ready endpoint has a zone
 *       hint and at least one names this node's zone; otherwise none. The Cluster list is the ready
 *       endpoints available at that level; if that is empty (which means no endpoint is ready) it
 *       is every serving-terminating endpoint instead, with topology ignored.
 *   <li>If the Service uses the Local list, it holds this node's ready endpoints, or failing those
 *       this node's serving-terminating endpoints, or is absent. Topology never applies to it. Any
 *       ready or serving-terminating endpoint anywhere means the Service has endpoints.
 *   <li>All reachable endpoints: the one list in use; or the Cluster list when it holds every ready
 *       endpoint and the Local list only ready ones; otherwise the union, de-duplicated by {@code
 *       ip:port}.
 * </ol>
 *
 * <p>An empty node name or zone matches no hint. Pure and deterministic: every list is sorted by
 * IP, then port, and the reason text depends only on the inputs.
 */
public final class EndpointSelector {
  /** How many endpoints a reason names before it says "and N more". */
  static final int NAMED_IN_REASON = 3;

  private EndpointSelector() {}

  /**
   * @param endpoints every endpoint of this Service port and IP family; null is treated as empty
   * @param nodeName this proxy's node name, for node hints; null or empty matches no hint
   * @param nodeZone this node's {@code topology.kubernetes.io/zone} label; null or empty when the
   *     label is missing, and then matches no hint
   */
  public static EndpointSelection select(
      List<Endpoint> endpoints, ServicePort port, String nodeName, String nodeZone) {
    Objects.requireNonNull(port, "port");
    List<Endpoint> all = endpoints == null ? List.of() : endpoints;
    all.forEach(ep -> Objects.requireNonNull(ep, "endpoint"));
    if (all.isEmpty()) {
      return new EndpointSelection(
          null, null, List.of(), false, TopologyLevel.NONE, "no endpoints");
    }
    String node = nodeName == null ? "" : nodeName;
    String zone = nodeZone == null ? "" : nodeZone;
    // Sorting first makes the reasons list endpoints in the same order as the results.
    List<Endpoint> sorted = EndpointOrder.sorted(all);

    TopologyLevel level = TopologyLevel.NONE;
    List<Endpoint> cluster = null;
    boolean hasAny = false;
    String clusterReason;
    if (port.usesClusterEndpoints()) {
      var decision = decideTopology(sorted, node, zone);
      level = decision.level();
      TopologyLevel chosen = level;
      cluster = filter(sorted, ep -> ep.ready() && availableAt(ep, chosen, node, zone));
      clusterReason = decision.reason();
      if (cluster.isEmpty()) {
        // Any chosen level has a ready endpoint available at it, so an empty list here means
        // there is no ready endpoint at all (and the level is NONE): fall back, ignoring topology.
        cluster = filter(sorted, ep -> ep.serving() && ep.terminating());
        clusterReason =
            cluster.isEmpty()
                ? "no ready or serving-terminating endpoints"
                : "no ready endpoints; using "
                    + count(cluster.size(), "serving-terminating endpoint")
                    + ", topology ignored";
      }
      hasAny = !cluster.isEmpty();
    } else {
      clusterReason = "Cluster list not used (internalTrafficPolicy Local without external access)";
    }

    if (!port.usesLocalEndpoints()) {
      return new EndpointSelection(cluster, null, cluster, hasAny, level, clusterReason);
    }

    boolean hasLocalReady = false;
    boolean hasLocalServingTerminating = false;
    for (Endpoint ep : sorted) {
      if (ep.ready()) {
        hasAny = true;
        hasLocalReady |= ep.local();
      } else if (ep.serving() && ep.terminating()) {
        hasAny = true;
        hasLocalServingTerminating |= ep.local();
      }
    }

    List<Endpoint> local = null;
    boolean useServingTerminating = false;
    String localReason;
    if (hasLocalReady) {
      local = filter(sorted, ep -> ep.local() && ep.ready());
      localReason =
          "Local list (no topology): " + count(local.size(), "ready endpoint") + " on this node";
    } else if (hasLocalServingTerminating) {
      useServingTerminating = true;
      local = filter(sorted, ep -> ep.local() && ep.serving() && ep.terminating());
      localReason =
          "Local list (no topology): "
              + count(local.size(), "serving-terminating endpoint")
              + " on this node, no ready one";
    } else {
      localReason = "Local list: none, no ready or serving-terminating endpoint on this node";
    }
    String reason = clusterReason + "; " + localReason;

    if (cluster == null) {
      return new EndpointSelection(
          null, local, local == null ? List.of() : local, hasAny, level, reason);
    }
    if (level == TopologyLevel.NONE && !useServingTerminating) {
      // The Cluster list holds every ready endpoint and the Local list only ready ones.
      return new EndpointSelection(cluster, local, cluster, hasAny, level, reason);
    }
    var union = new LinkedHashMap<String, Endpoint>();
    cluster.forEach(ep -> union.put(ep.address(), ep));
    if (local != null) {
      local.forEach(ep -> union.put(ep.address(), ep));
    }
    return new EndpointSelection(
        cluster, local, EndpointOrder.sorted(union.values()), hasAny, level, reason);
  }

  private record Decision(TopologyLevel level, String reason) {}

  /** Upstream's topologyModeFromHints, explaining its choice. Only ready endpoints count. */
  private static Decision decideTopology(List<Endpoint> sorted, String node, String zone) {
    int ready = 0;
    int forNode = 0;
    int forZone = 0;
    List<Endpoint> withoutNodeHints = new ArrayList<>();
    List<Endpoint> withoutZoneHints = new ArrayList<>();
    for (Endpoint ep : sorted) {
      if (!ep.ready()) {
        continue;
      }
      ready++;
      if (ep.nodeHints().isEmpty()) {
        withoutNodeHints.add(ep);
      } else if (hinted(ep.nodeHints(), node)) {
        forNode++;
      }
      if (ep.zoneHints().isEmpty()) {
        withoutZoneHints.add(ep);
      } else if (hinted(ep.zoneHints(), zone)) {
        forZone++;
      }
    }
    if (ready == 0) {
      // The reason is replaced by the serving-terminating fallback's.
      return new Decision(TopologyLevel.NONE, "no ready endpoints");
    }

    if (withoutNodeHints.isEmpty() && forNode > 0) {
      return new Decision(
          TopologyLevel.PREFER_SAME_NODE,
          "every ready endpoint has a node hint and " + nameCount(forNode) + " " + node);
    }
    String nodeSkipped;
    if (!withoutNodeHints.isEmpty()) {
      nodeSkipped = "node hints skipped: " + missing(withoutNodeHints, ready);
    } else if (node.isEmpty()) {
      nodeSkipped = "node hints skipped: this node's name is empty";
    } else {
      nodeSkipped = "node hints skipped: no ready endpoint names " + node;
    }

    if (withoutZoneHints.isEmpty() && forZone > 0) {
      return new Decision(
          TopologyLevel.PREFER_SAME_ZONE,
          nodeSkipped
              + "; every ready endpoint has a zone hint and "
              + nameCount(forZone)
              + " "
              + zone);
    }
    String using =
        ready == 1 ? "using the only ready endpoint" : "using all " + ready + " ready endpoints";
    if (withoutNodeHints.size() == ready && withoutZoneHints.size() == ready) {
      return new Decision(TopologyLevel.NONE, "no ready endpoint has topology hints; " + using);
    }
    String zoneSkipped;
    if (!withoutZoneHints.isEmpty()) {
      zoneSkipped = "zone hints skipped: " + missing(withoutZoneHints, ready);
    } else if (zone.isEmpty()) {
      zoneSkipped = "zone hints skipped: this node has no " + Labels.ZONE + " label";
    } else {
      zoneSkipped = "zone hints skipped: no ready endpoint names " + zone;
    }
    return new Decision(TopologyLevel.NONE, nodeSkipped + "; " + zoneSkipped + "; " + using);
  }

  /** Upstream's availableForTopology; there is no fallback here, only in the level choice. */
  private static boolean availableAt(Endpoint ep, TopologyLevel level, String node, String zone) {
    return switch (level) {
      case NONE -> true;
      case PREFER_SAME_NODE -> hinted(ep.nodeHints(), node);
      case PREFER_SAME_ZONE -> hinted(ep.zoneHints(), zone);
    };
  }

  /**
   * A hint match counts only for a non-empty name: a missing label or node name matches nothing.
   */
  private static boolean hinted(Set<String> hints, String name) {
    return !name.isEmpty() && hints.contains(name);
  }

  private static List<Endpoint> filter(List<Endpoint> endpoints, Predicate<Endpoint> keep) {
    return endpoints.stream().filter(keep).toList();
  }

  /** "10.0.0.3:80 has none", "a and b have none", "a, b, c and 2 more have none". */
  private static String missing(List<Endpoint> without, int ready) {
    if (without.size() == ready) {
      return "no ready endpoint has one";
    }
    int named = Math.min(without.size(), NAMED_IN_REASON);
    var text = new StringBuilder();
    for (int i = 0; i < named; i++) {
      if (i > 0) {
        text.append(i == named - 1 && without.size() == named ? " and " : ", ");
      }
      text.append(without.get(i).address());
    }
    if (without.size() > named) {
      text.append(" and ").append(without.size() - named).append(" more");
    }
    return text.append(without.size() == 1 ? " has none" : " have none").toString();
  }

  /** "1 names", "2 name". */
  private static String nameCount(int n) {
    return n + (n == 1 ? " names" : " name");
  }

  /** "1 ready endpoint", "2 ready endpoints". */
  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
