package dev.proxima.controller.events;

/** Event reasons the controller records on Services: upstream's where upstream has one. */
public final class EventReasons {
  /** Upstream's reason when a Service's sync fails. */
  public static final String FAILED_TO_UPDATE_ENDPOINT_SLICES = "FailedToUpdateEndpointSlices";

  /** Proxima's: another writer keeps reverting hints, so Proxima backs off from a slice. */
  public static final String HINTS_OVERWRITTEN = "HintsOverwritten";

  /** Proxima's: the trafficDistribution value is not one Proxima (or upstream) implements. */
  public static final String UNSUPPORTED_TRAFFIC_DISTRIBUTION = "UnsupportedTrafficDistribution";

  /** Proxima's: a zone spill-over annotation holds a value that cannot be meant. */
  public static final String INVALID_ZONE_SPILL_OVER = "InvalidZoneSpillOver";

  /** Proxima's: a Service kept failing and its retries were exhausted. */
  public static final String SYNC_RETRIES_EXHAUSTED = "SyncRetriesExhausted";

  private EventReasons() {}
}
