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
