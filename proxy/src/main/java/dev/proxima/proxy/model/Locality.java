package dev.proxima.proxy.model;

import java.util.Locale;

/**
 * Where an endpoint is relative to this proxy's node: what the kernel counts each new connection
 * the proxy dispatches by ({@code proxima_proxy_connections_total{locality}}).
 */
public enum Locality {
  /** The endpoint's nodeName is this node. */
  NODE,
  /** Another node in this node's zone. */
  ZONE,
  /** A node in another zone. */
  OTHER_ZONE,
  /** The endpoint or this node has no zone, so nothing can be said. */
  UNKNOWN;

  /**
   * The metric label and the middle of the kernel object names: node, zone, other-zone, unknown.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The locality of an endpoint.
   *
   * @param local whether the endpoint's nodeName is this node
   * @param endpointZone the endpoint's zone, or null
   * @param nodeZone this node's zone, or null
   */
  public static Locality of(boolean local, String endpointZone, String nodeZone) {
    if (local) {
      return NODE;
    }
    if (endpointZone == null || endpointZone.isEmpty() || nodeZone == null || nodeZone.isEmpty()) {
      return UNKNOWN;
    }
    return endpointZone.equals(nodeZone) ? ZONE : OTHER_ZONE;
  }
}
