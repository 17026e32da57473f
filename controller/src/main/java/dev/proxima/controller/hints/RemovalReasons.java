package dev.proxima.controller.hints;

import dev.proxima.controller.hints.auto.AutoHintEvents;

/**
 * Short, fixed names for why a plan removed hints: label values of the removals metric, so an
 * operator can tell "the cluster lost zone information" from "someone removed the field".
 */
public final class RemovalReasons {
  public static final String NO_HINT_SOURCE = "NoTrafficDistribution";
  public static final String UNSUPPORTED_TRAFFIC_DISTRIBUTION = "UnsupportedTrafficDistribution";
  public static final String AUTO_DISABLED = "AutoDisabled";
  static final String OTHER = "Other";

  /**
   * Every reason a Service that asks for hints can be without them: Auto's safeguards, and an
   * endpoint without a zone under a trafficDistribution value.
   */
  public static final java.util.List<String> SHORTFALLS =
      java.util.List.of(
          "InsufficientNodeInfo",
          "NodesReadyInOneZoneOnly",
          "InsufficientNumberOfEndpoints",
          "MinAllocationExceedsOverloadThreshold",
          "NoZoneSpecified",
          "NoAllocatedHintsForZones",
          OTHER);

  private RemovalReasons() {}

  /** The reason behind one of upstream's TopologyAwareHintsDisabled messages. */
  static String of(String message) {
    if (message.startsWith(AutoHintEvents.INSUFFICIENT_NODE_INFO)) {
      return "InsufficientNodeInfo";
    }
    if (message.startsWith(AutoHintEvents.NODES_READY_IN_ONE_ZONE_ONLY)) {
      return "NodesReadyInOneZoneOnly";
    }
    if (message.startsWith(AutoHintEvents.INSUFFICIENT_NUMBER_OF_ENDPOINTS)) {
      return "InsufficientNumberOfEndpoints";
    }
    if (message.startsWith(AutoHintEvents.MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD)) {
      return "MinAllocationExceedsOverloadThreshold";
    }
    if (message.startsWith(AutoHintEvents.NO_ZONE_SPECIFIED)) {
      return "NoZoneSpecified";
    }
    if (message.startsWith(AutoHintEvents.NO_ALLOCATED_HINTS_FOR_ZONES)) {
      return "NoAllocatedHintsForZones";
    }
    return OTHER;
  }
}
