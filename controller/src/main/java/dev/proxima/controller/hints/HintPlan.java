package dev.proxima.controller.hints;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * What the controller should do for one Service: the slices whose hints must change, as complete
 * copies carrying the new hints (and the resourceVersion they were computed from), and the Events
 * to record.
 *
 * @param updates slices to write, in name order; never objects from an informer cache
 * @param skipped slices the plan deliberately left alone, with the reason, for logs and plan output
 * @param removals why hints were removed, one entry per address type that lost them (see {@link
 *     RemovalReasons}); empty when nothing was removed
 * @param leftToKcm slices whose hints differ from the plan but are kube-controller-manager's to
 *     write under {@code --slices}; they are not in {@code updates}
 * @param shortfall why the plan holds no hints although the Service asks for them (Auto's
 *     InsufficientNodeInfo and the like); empty when it holds the hints asked for
 */
public record HintPlan(
    ObjectKey service,
    HintMode mode,
    TrafficDistribution trafficDistribution,
    List<EndpointSlice> updates,
    List<SkippedSlice> skipped,
    List<PlannedEvent> events,
    List<String> removals,
    List<String> leftToKcm,
    java.util.Optional<Shortfall> shortfall) {

  public HintPlan {
    leftToKcm = List.copyOf(leftToKcm);
    updates = List.copyOf(updates);
    skipped = List.copyOf(skipped);
    events = List.copyOf(events);
    removals = List.copyOf(removals);
  }

  /**
   * The {@code mode} label of the Services-by-mode metric: Auto, the trafficDistribution value that
   * decides, or None.
   */
  public String modeLabel() {
    return switch (mode) {
      case AUTO -> "Auto";
      case TRAFFIC_DISTRIBUTION -> trafficDistribution.raw();
      case NONE -> "None";
    };
  }

  /**
   * The {@code traffic_distribution} label upstream uses: the raw value when it decides the hints,
   * otherwise empty.
   */
  public String trafficDistributionLabel() {
    return mode == HintMode.TRAFFIC_DISTRIBUTION ? trafficDistribution.raw() : "";
  }

  /** Why hints the Service asks for are not planned: a condition reason and a sentence. */
  public record Shortfall(String reason, String message) {}

  /** A slice the plan did not touch, and why. */
  public record SkippedSlice(String name, String reason) {}
}
