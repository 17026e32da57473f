package dev.proxima.controller.hints;

/** Which producer decides a Service's hints, in upstream's order of precedence. */
public enum HintMode {
  /** The topology-mode Auto annotation; it wins over spec.trafficDistribution. */
  AUTO,
  /** A supported spec.trafficDistribution value. */
  TRAFFIC_DISTRIBUTION,
  /** Neither: every hint is removed. */
  NONE;

  /** The {@code topology} label upstream puts on endpointslices_changed_per_sync. */
  public String topologyLabel() {
    return this == AUTO ? "Auto" : "Disabled";
  }
}
