package dev.proxima.proxy.plan;

import dev.proxima.model.TrafficDistribution;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.selection.TopologyLevel;
import java.util.List;

/**
 * Why a Service port that asks for closeness ({@code PreferSameNode}, {@code PreferSameZone},
 * {@code PreferClose}) is routed at a wider level on this node. The reasons are metric label
 * values, so they are few and fixed.
 */
public enum TopologyFallback {
  /** The wanted level is in use, or the Service asks for nothing. */
  NONE(""),
  NO_READY_ENDPOINTS("no_ready_endpoints"),
  INCOMPLETE_NODE_HINTS("incomplete_node_hints"),
  NO_ENDPOINT_ON_NODE("no_endpoint_on_node"),
  NODE_WITHOUT_ZONE("node_without_zone"),
  INCOMPLETE_ZONE_HINTS("incomplete_zone_hints"),
  NO_ENDPOINT_IN_ZONE("no_endpoint_in_zone");

  private final String label;

  TopologyFallback(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** When PreferSameNode falls back to the zone, the node-level reason is reported. */
  public static TopologyFallback classify(
      String trafficDistribution,
      TopologyLevel reached,
      List<Endpoint> endpoints,
      String nodeName,
      String nodeZone) {
    var wanted = TrafficDistribution.parse(trafficDistribution);
    if (!wanted.isSupported()) {
      return NONE;
    }
    var wantedLevel =
        wanted.prefersSameNode() ? TopologyLevel.PREFER_SAME_NODE : TopologyLevel.PREFER_SAME_ZONE;
    if (reached == wantedLevel || reached == TopologyLevel.PREFER_SAME_NODE) {
      return NONE;
    }
    var ready = endpoints.stream().filter(Endpoint::ready).toList();
    if (ready.isEmpty()) {
      return NO_READY_ENDPOINTS;
    }
    if (wantedLevel == TopologyLevel.PREFER_SAME_NODE) {
      if (ready.stream().anyMatch(endpoint -> endpoint.nodeHints().isEmpty())) {
        return INCOMPLETE_NODE_HINTS;
      }
      return NO_ENDPOINT_ON_NODE;
    }
    if (nodeZone == null || nodeZone.isEmpty()) {
      return NODE_WITHOUT_ZONE;
    }
    if (ready.stream().anyMatch(endpoint -> endpoint.zoneHints().isEmpty())) {
      return INCOMPLETE_ZONE_HINTS;
    }
    return NO_ENDPOINT_IN_ZONE;
  }
}
