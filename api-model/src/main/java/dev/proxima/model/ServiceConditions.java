package dev.proxima.model;

/**
 * The conditions proxima-controller keeps on a Service that asks for traffic distribution (KEP-4444
 * lists them as future work and asks for a domain prefix), and their reasons, so tools reading them
 * share one spelling.
 */
public final class ServiceConditions {
  /** Whether Proxima implements the value (or annotation) the Service asks for. */
  public static final String ACCEPTED = "proxima.dev/TrafficDistributionAccepted";

  /** Whether every slice of the Service carries the hints planned for it. */
  public static final String PROGRAMMED = "proxima.dev/TrafficDistributionProgrammed";

  /**
   * Whether the Service's zone spill-over (the {@code proxima.dev/zone-spill-over} annotation)
   * applies, and the fraction of its connections each zone keeps on its own endpoints; present only
   * while the annotation asks for it.
   */
  public static final String ZONE_SPILL_OVER = "proxima.dev/ZoneSpillOver";

  /** Reasons of {@link #ZONE_SPILL_OVER}. */
  public static final class ZoneSpillOverReason {
    /** True: some zone spreads part of its connections over every zone's endpoints. */
    public static final String SPILLING = "Spilling";

    /** True: every zone has the endpoints for its demand; all traffic stays in-zone. */
    public static final String WITHIN_TOLERANCE = "WithinTolerance";

    /** False: an annotation value cannot be meant. */
    public static final String INVALID_ANNOTATION = "InvalidAnnotation";

    /** False: the Service's endpoints do not all carry zone hints. */
    public static final String NO_ZONE_HINTS = "NoZoneHints";

    /** False: the zones' demand is not known (insufficient node information). */
    public static final String DEMAND_UNKNOWN = "DemandUnknown";

    private ZoneSpillOverReason() {}
  }

  /** Reasons of {@link #ACCEPTED}. */
  public static final class AcceptedReason {
    public static final String ACCEPTED = "Accepted";
    public static final String DEPRECATED_VALUE = "DeprecatedValue";
    public static final String DISABLED = "Disabled";
    public static final String UNSUPPORTED_VALUE = "UnsupportedValue";
    public static final String OVERRIDDEN_BY_ANNOTATION = "OverriddenByAnnotation";

    private AcceptedReason() {}
  }

  /** Reasons of {@link #PROGRAMMED}. */
  public static final class ProgrammedReason {
    public static final String PROGRAMMED = "Programmed";
    public static final String HINTS_REMOVED = "HintsRemoved";
    public static final String NOT_ACCEPTED = "NotAccepted";
    public static final String INSUFFICIENT_NODE_INFO = "InsufficientNodeInfo";
    public static final String NO_ZONE_SPECIFIED = "NoZoneSpecified";
    public static final String HINTS_OVERWRITTEN = "HintsOverwritten";
    public static final String WRITE_FAILING = "WriteFailing";
    public static final String MANAGED_BY_KUBE_CONTROLLER_MANAGER =
        "ManagedByKubeControllerManager";

    private ProgrammedReason() {}
  }

  private ServiceConditions() {}
}
