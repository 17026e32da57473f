package dev.proxima.proxy.selection;

import dev.proxima.model.ZoneDemand;
import dev.proxima.model.ZoneSpillOver;
import dev.proxima.model.ZoneSpillOverSetting;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether one Service port spills on this node, and how much: the fraction p of new connections its
 * zone keeps on the endpoints the zone hints chose, from the endpoints per zone, the published zone
 * demand and the Service's tolerance ({@link ZoneSpillOver}). Pure.
 *
 * <p>Only a Cluster list chosen by zone hints spills: node hints (PreferSameNode) come first and
 * are never spilled, and a list that already holds every endpoint has nothing to spill to. The
 * Local list never spills. Endpoints per zone are counted as the controller counts them for the
 * Service's condition: each ready endpoint once for every zone its hints name.
 *
 * @param spill what the rules carry; {@link ZoneSpill#NONE} routes as without spill-over
 * @param why one sentence for {@code explain}: p and its inputs, or why there is none
 * @param active whether the Service asked for spill-over with a valid annotation and its Cluster
 *     list follows zone hints here, so that p means something (and has a metric)
 */
public record ZoneSpillChoice(ZoneSpill spill, String why, boolean active) {
  /** No spill-over asked for. */
  public static final ZoneSpillChoice OFF = new ZoneSpillChoice(ZoneSpill.NONE, "off", false);

  /**
   * @param endpoints every endpoint of the port and family
   * @param selection what the selection chose from them on this node
   * @param zone this node's zone; null when it has none
   */
  public static ZoneSpillChoice choose(
      ServicePort port,
      List<Endpoint> endpoints,
      EndpointSelection selection,
      String zone,
      ZoneDemand demand) {
    var setting = port.zoneSpillOver();
    if (setting.state() == ZoneSpillOverSetting.State.OFF) {
      return OFF;
    }
    if (setting.state() == ZoneSpillOverSetting.State.INVALID) {
      return new ZoneSpillChoice(ZoneSpill.NONE, "invalid annotation: " + setting.problem(), false);
    }
    if (selection.topology() == TopologyLevel.PREFER_SAME_NODE) {
      return inactive("node hints chose the endpoints; PreferSameNode is not spilled");
    }
    if (selection.topology() != TopologyLevel.PREFER_SAME_ZONE) {
      return inactive("no zone hints choose this node's Cluster endpoints");
    }
    var counts = endpointsPerZone(endpoints);
    if (!demand.isKnown()) {
      return inactive(
          "zone demand unknown (ConfigMap "
              + ZoneDemand.CONFIG_MAP_NAME
              + " missing or refused); traffic stays on the hinted endpoints");
    }
    var inputs =
        "zone %s; endpoints per zone %s; demand %s; tolerance %s"
            .formatted(zone, counts, demand.data(), setting.tolerance());
    if (!demand.shares().containsKey(zone)) {
      return new ZoneSpillChoice(
          ZoneSpill.NONE, "p=1: this node's zone is not in the demand (" + inputs + ")", true);
    }
    double keep = ZoneSpillOver.fractions(counts, demand, setting.tolerance()).localFraction(zone);
    int perMille = perMille(keep);
    if (perMille == ZoneSpill.WHOLE) {
      return new ZoneSpillChoice(ZoneSpill.NONE, "p=1 (" + inputs + ")", true);
    }
    var spread = EndpointOrder.sorted(endpoints).stream().filter(Endpoint::ready).toList();
    return new ZoneSpillChoice(
        new ZoneSpill(perMille, spread),
        "p=%s, the rest spread over %s ready endpoints (%s)"
            .formatted(
                BigDecimal.valueOf(perMille, 3).stripTrailingZeros().toPlainString(),
                spread.size(),
                inputs),
        true);
  }

  private static ZoneSpillChoice inactive(String why) {
    return new ZoneSpillChoice(ZoneSpill.NONE, why, false);
  }

  /** p in thousandths, rounded half-even; never 1000 unless p rounds there. */
  static int perMille(double keep) {
    if (!(keep > 0)) {
      return 0;
    }
    return BigDecimal.valueOf(Math.min(1, keep))
        .movePointRight(3)
        .setScale(0, RoundingMode.HALF_EVEN)
        .intValueExact();
  }

  /**
   * Ready endpoints per hinted zone; empty when a ready endpoint has no zone hint (the proxies then
   * ignore every zone hint).
   */
  static Map<String, Integer> endpointsPerZone(List<Endpoint> endpoints) {
    var counts = new TreeMap<String, Integer>();
    for (var endpoint : endpoints) {
      if (!endpoint.ready()) {
        continue;
      }
      if (endpoint.zoneHints().isEmpty()) {
        return Map.of();
      }
      endpoint.zoneHints().forEach(zone -> counts.merge(zone, 1, Integer::sum));
    }
    return counts;
  }
}
