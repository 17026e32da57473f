package dev.proxima.controller.hints.auto;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.model.ObjectKey;

/**
 * The Events upstream's topology cache records on a Service, with upstream's reasons and message
 * texts (topologycache/event.go). Every message ends in {@code ", addressType: <type>"} because
 * hints are decided per address type.
 */
public final class AutoHintEvents {
  public static final String REASON_ENABLED = "TopologyAwareHintsEnabled";
  public static final String REASON_DISABLED = "TopologyAwareHintsDisabled";

  public static final String NO_ZONE_SPECIFIED =
      "One or more endpoints do not have a zone specified";
  public static final String NO_ALLOCATED_HINTS_FOR_ZONES = "No hints allocated for zones";
  public static final String ENABLED = "Topology Aware Hints has been enabled";
  public static final String DISABLED = "Topology Aware Hints has been disabled";
  public static final String INSUFFICIENT_NODE_INFO =
      "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes";
  public static final String NODES_READY_IN_ONE_ZONE_ONLY = "Nodes only ready in one zone";
  public static final String INSUFFICIENT_NUMBER_OF_ENDPOINTS = "Insufficient number of endpoints";
  public static final String MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD =
      "Unable to allocate minimum required endpoints to each zone without exceeding overload"
          + " threshold";

  private AutoHintEvents() {}

  /** Upstream's FormatWithAddressType. */
  public static String withAddressType(String message, String addressType) {
    return message + ", addressType: " + addressType;
  }

  /** Hints for this address type were removed because of {@code cause}, one of the texts above. */
  public static PlannedEvent disabled(ObjectKey service, String cause, String addressType) {
    return PlannedEvent.warning(service, REASON_DISABLED, withAddressType(cause, addressType));
  }

  /** Hints were written for a Service that had none populated before. */
  public static PlannedEvent enabled(ObjectKey service, String addressType) {
    return PlannedEvent.normal(service, REASON_ENABLED, withAddressType(ENABLED, addressType));
  }

  /**
   * The reconciler's Event when a Service stops asking for Auto while hints were still populated
   * for it (upstream reconciler.go, not the topology cache).
   */
  public static PlannedEvent autoSwitchedOff(ObjectKey service, String addressType) {
    return disabled(service, DISABLED, addressType);
  }
}
