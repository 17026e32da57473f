package dev.proxima.proxy.route;

/** What happens to a packet that arrives at one entry point of a Service port. */
public enum Verdict {
  /** DNAT to one endpoint of the Cluster list (with the port's affinity). */
  CLUSTER_ENDPOINTS,
  /** DNAT to one endpoint of the Local list (with the port's affinity). */
  LOCAL_ENDPOINTS,
  /**
   * Dropped: the Service has endpoints, but none this traffic policy may use (upstream's "has no
   * local endpoints"); the client retries as it would against a node without the Service.
   */
  DROP,
  /** Rejected (ICMP port unreachable): the Service has no endpoints at all, clients fail fast. */
  REJECT;

  public boolean dispatches() {
    return this == CLUSTER_ENDPOINTS || this == LOCAL_ENDPOINTS;
  }
}
