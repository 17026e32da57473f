package dev.proxima.model;

/** Well-known Kubernetes annotation keys that Proxima reads. */
public final class Annotations {
  /** Selects the topology heuristic of a Service; only {@code Auto} or {@code auto} enables it. */
  public static final String TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";

  /**
   * The deprecated predecessor of {@link #TOPOLOGY_MODE}. When present with any value, even empty,
   * it alone decides, exactly as upstream does.
   */
  public static final String TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints";

  /** When the endpoints of a slice last changed; the start of network programming latency. */
  public static final String LAST_CHANGE_TRIGGER_TIME =
      "endpoints.kubernetes.io/last-change-trigger-time";

  /**
   * A Service opts in to per-Service locality counting in the proxy with the value {@code "true"}
   * (exactly; anything else leaves it out).
   */
  public static final String OBSERVE_LOCALITY = "proxima.dev/observe-locality";

  /**
   * A Service whose endpoints carry zone hints opts in to capacity-aware zone spill-over with the
   * value {@code "true"}; {@code "false"} is the same as leaving it out. See {@link
   * ZoneSpillOverSetting}.
   */
  public static final String ZONE_SPILL_OVER = "proxima.dev/zone-spill-over";

  /**
   * How far above the mean an endpoint's expected share of connections may rise before a zone
   * spills traffic to other zones, as a factor such as {@code "1.25"}; read only with {@link
   * #ZONE_SPILL_OVER}.
   */
  public static final String ZONE_SPILL_OVER_TOLERANCE = "proxima.dev/zone-spill-over-tolerance";

  /** Whether a Service's annotations opt it in to per-Service locality counting. */
  public static boolean observesLocality(java.util.Map<String, String> annotations) {
    return annotations != null && "true".equals(annotations.get(OBSERVE_LOCALITY));
  }

  private Annotations() {}
}
