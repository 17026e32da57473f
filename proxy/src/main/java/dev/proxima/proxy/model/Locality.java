package dev.proxima.proxy.model;

import java.util.Locale;

/**
 * Where an endpoint is relative to this proxy's node: what the kernel counts each new connection
 * the proxy dispatches by ({@code proxima_proxy_connections_total{locality}}).
 */
public enum Locality {
  NODE,
  ZONE,
  OTHER_ZONE,
  /** The endpoint or this node has no zone. */
  UNKNOWN;

  /** The metric label and the middle of the kernel object names. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The zones may be null. */
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
