package dev.proxima.controller.conditions;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.HintMode;
import dev.proxima.controller.hints.HintPlan;
import dev.proxima.model.ServiceConditions;
import dev.proxima.model.ServiceConditions.ZoneSpillOverReason;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.ZoneSpillOver;
import dev.proxima.model.ZoneSpillOverSetting;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The ZoneSpillOver condition of a Service that asks for zone spill-over: whether it applies and
 * the fraction each zone keeps in-zone, from the slices as the plan leaves them and the published
 * zone demand. Pure, like {@link TrafficDistributionConditions}.
 */
public final class ZoneSpillOverCondition {
  private ZoneSpillOverCondition() {}

  /**
   * @param conditions the condition, or none when the Service does not ask (which removes one left
   *     from before)
   * @param events a Warning naming the annotation when its value cannot be meant
   */
  public record Outcome(List<Condition> conditions, List<PlannedEvent> events) {
    public Outcome {
      conditions = List.copyOf(conditions);
      events = List.copyOf(events);
    }
  }

  /**
   * @param slices the Service's slices as stored; the plan's updates replace their namesakes
   * @param demand the zone demand the controller publishes
   */
  public static Outcome desired(
      Service service, HintPlan plan, List<EndpointSlice> slices, ZoneDemand demand) {
    var setting = ZoneSpillOverSetting.parse(service.getMetadata().getAnnotations());
    var generation = service.getMetadata().getGeneration();
    return switch (setting.state()) {
      case OFF -> new Outcome(List.of(), List.of());
      case INVALID ->
          new Outcome(
              List.of(
                  condition(
                      false,
                      ZoneSpillOverReason.INVALID_ANNOTATION,
                      setting.problem(),
                      generation)),
              List.of(
                  PlannedEvent.warning(
                      plan.service(),
                      EventReasons.INVALID_ZONE_SPILL_OVER,
                      "Service " + plan.service() + ": " + setting.problem())));
      case ON ->
          new Outcome(
              List.of(applied(plan, slices, demand, setting.tolerance(), generation)), List.of());
    };
  }

  private static Condition applied(
      HintPlan plan, List<EndpointSlice> slices, ZoneDemand demand, double tolerance, Long gen) {
    boolean zoneHints =
        plan.mode() == HintMode.AUTO
            || (plan.mode() == HintMode.TRAFFIC_DISTRIBUTION
                && !plan.trafficDistribution().prefersSameNode());
    if (!zoneHints) {
      return condition(
          false,
          ZoneSpillOverReason.NO_ZONE_HINTS,
          "Zone spill-over needs zone hints: spec.trafficDistribution PreferSameZone (or"
              + " PreferClose) or the topology-mode annotation Auto",
          gen);
    }
    var endpoints = EndpointsPerZone.count(slices, plan.updates());
    if (endpoints.isEmpty()) {
      return condition(
          false,
          ZoneSpillOverReason.NO_ZONE_HINTS,
          "No ready endpoint carries a zone hint, or some lack one, so proxies route cluster-wide",
          gen);
    }
    if (!demand.isKnown()) {
      return condition(
          false,
          ZoneSpillOverReason.DEMAND_UNKNOWN,
          "The zones' demand is unknown (no zone CPU ratios from ready, schedulable Nodes in two"
              + " or more zones); traffic stays on the hinted endpoints",
          gen);
    }
    var fractions = ZoneSpillOver.fractions(endpoints, demand, tolerance);
    var unspilled =
        ZoneSpillOver.loadsOverMean(
            endpoints, demand, new ZoneSpillOver.Fractions(allLocal(demand), 0));
    var worst = unspilled.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
    var kept = describe(fractions.local(), endpoints);
    if (!fractions.spills(endpoints)) {
      return condition(
          true,
          ZoneSpillOverReason.WITHIN_TOLERANCE,
          "Every zone keeps its connections in-zone ("
              + kept
              + "); no endpoint is expected above "
              + times(worst)
              + " the mean, within the tolerance of "
              + times(tolerance),
          gen);
    }
    return condition(
        true,
        ZoneSpillOverReason.SPILLING,
        "Share of its new connections each zone keeps in-zone, the rest spread over every"
            + " endpoint: "
            + kept
            + "; no endpoint is expected above "
            + times(tolerance)
            + " the mean (without spill-over: "
            + times(worst)
            + ")",
        gen);
  }

  private static SortedMap<String, Double> allLocal(ZoneDemand demand) {
    var local = new TreeMap<String, Double>();
    demand.shares().keySet().forEach(zone -> local.put(zone, 1.0));
    return local;
  }

  private static String describe(Map<String, Double> local, Map<String, Integer> endpoints) {
    var parts = new java.util.ArrayList<String>();
    local.forEach(
        (zone, p) ->
            parts.add(
                endpoints.getOrDefault(zone, 0) == 0
                    ? zone + " none (no endpoints)"
                    : zone + " " + percent(p)));
    return String.join(", ", parts);
  }

  private static String percent(double fraction) {
    return BigDecimal.valueOf(fraction * 100)
            .setScale(1, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }

  private static String times(double factor) {
    return BigDecimal.valueOf(factor)
            .setScale(2, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString()
        + "×";
  }

  private static Condition condition(boolean status, String reason, String message, Long gen) {
    return new ConditionBuilder()
        .withType(ServiceConditions.ZONE_SPILL_OVER)
        .withStatus(status ? "True" : "False")
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(gen)
        .build();
  }

  /** Ready endpoints per hinted zone, from the slices as the plan leaves them. */
  static final class EndpointsPerZone {
    private EndpointsPerZone() {}

    /**
     * Counts the endpoints of one address type, IPv4 when the Service has any, since both types
     * carry the same endpoints. Empty when a ready endpoint carries no zone hint: proxies then
     * ignore the hints of every endpoint.
     */
    static Map<String, Integer> count(List<EndpointSlice> stored, List<EndpointSlice> updates) {
      var byName = new java.util.LinkedHashMap<String, EndpointSlice>();
      stored.forEach(slice -> byName.put(slice.getMetadata().getName(), slice));
      updates.forEach(slice -> byName.put(slice.getMetadata().getName(), slice));
      var type =
          byName.values().stream().anyMatch(s -> "IPv4".equals(s.getAddressType()))
              ? "IPv4"
              : "IPv6";
      var counts = new HashMap<String, Integer>();
      for (var slice : byName.values()) {
        if (!type.equals(slice.getAddressType()) || slice.getEndpoints() == null) {
          continue;
        }
        for (var endpoint : slice.getEndpoints()) {
          var conditions = endpoint.getConditions();
          if (conditions != null && Boolean.FALSE.equals(conditions.getReady())) {
            continue;
          }
          var hints = endpoint.getHints();
          if (hints == null || hints.getForZones() == null || hints.getForZones().isEmpty()) {
            return Map.of();
          }
          for (var zone : hints.getForZones()) {
            if (zone != null && zone.getName() != null) {
              counts.merge(zone.getName(), 1, Integer::sum);
            }
          }
        }
      }
      return counts;
    }
  }
}
