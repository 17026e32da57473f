package dev.proxima.model;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How much of each zone's traffic stays on the endpoints its zone hints select, so that no
 * endpoint's expected share of new connections exceeds the tolerance over the mean. Pure: the same
 * counts, demand and tolerance always give the same fractions.
 *
 * <h2>The model</h2>
 *
 * Zone z opens the share d<sub>z</sub> of the connections ({@link ZoneDemand}) and its hints select
 * n<sub>z</sub> endpoints, N in all. Its proxies keep the fraction p<sub>z</sub> on those n<sub>z
 * </sub> endpoints and spread the rest uniformly over all N. The spilled share is S = Σ<sub>z</sub>
 * d<sub>z</sub>(1 − p<sub>z</sub>), so an endpoint of zone y expects
 *
 * <pre>
 *   L_y = d_y·p_y / n_y + S / N
 * </pre>
 *
 * against a mean of 1/N. With c<sub>y</sub> = N·d<sub>y</sub>/n<sub>y</sub>, the load of zone y's
 * endpoints over the mean when nothing spills, the bound L<sub>y</sub> ≤ T/N reads p<sub>y</sub> ≤
 * (T − S)/c<sub>y</sub>.
 *
 * <h2>The choice</h2>
 *
 * For a given S each zone keeps as much as the bound lets it: p<sub>y</sub>(S) = min(1, (T − S)/c
 * <sub>y</sub>). The S those fractions produce, f(S) = S<sub>0</sub> + Σ d<sub>y</sub>(1 − p<sub>y
 * </sub>(S)) (S<sub>0</sub> the demand of zones without endpoints), grows with S at a slope of at
 * most 1, so S − f(S) never falls, and the smallest S with f(S) ≤ S is found exactly on the
 * piecewise-linear f. Its fractions are the largest possible for every zone at once: any split that
 * keeps every endpoint within the bound has a spill S' ≥ S and fractions no larger than p(S'),
 * which are no larger than p(S).
 *
 * <h2>What follows, and the degenerate cases</h2>
 *
 * <ul>
 *   <li>A zone keeps everything (p = 1) when its endpoints carry its own demand plus what others
 *       spread onto them within the tolerance: c<sub>y</sub> + S ≤ T. When every zone with clients
 *       has endpoints and none has c<sub>y</sub> above T, nothing spills: today's behaviour.
 *   <li>A zone without endpoints has p = 0: its hints select nothing, so all its traffic spreads,
 *       as it does without spill-over.
 *   <li>Endpoints in a zone without demand only receive spilled traffic.
 *   <li>Unknown demand (fewer than two zones, no endpoints) keeps p = 1 everywhere: today's
 *       behaviour. A zone missing from the demand, such as one that has left the published object,
 *       is unknown too: {@link Fractions#localFraction} answers 1 for it.
 * </ul>
 */
public final class ZoneSpillOver {
  // Floating-point slack when comparing the spill with what the fractions produce.
  private static final double EPSILON = 1e-12;

  private ZoneSpillOver() {}

  /**
   * The fractions for every zone.
   *
   * @param endpointsPerZone how many ready endpoints each zone's hints select; hints select
   *     disjoint sets, as both PreferSameZone and Auto write them
   * @param demand each zone's share of the connections
   * @param tolerance how far over the mean an endpoint's share may rise, at least 1
   */
  public static Fractions fractions(
      Map<String, Integer> endpointsPerZone, ZoneDemand demand, double tolerance) {
    if (!(tolerance >= ZoneSpillOverSetting.MIN_TOLERANCE)) {
      throw new IllegalArgumentException("tolerance below 1: " + tolerance);
    }
    long total = 0;
    for (var count : endpointsPerZone.values()) {
      total += Math.max(0, count);
    }
    if (!demand.isKnown() || total == 0) {
      return Fractions.UNKNOWN;
    }
    double sum = demand.shares().values().stream().mapToDouble(Double::doubleValue).sum();
    if (!(sum > 0)) {
      return Fractions.UNKNOWN;
    }
    var shares = new TreeMap<String, Double>();
    var crowding = new TreeMap<String, Double>();
    double withoutEndpoints = 0;
    for (var entry : demand.shares().entrySet()) {
      // Rounded shares need not sum to one exactly.
      double share = entry.getValue() / sum;
      int endpoints = Math.max(0, endpointsPerZone.getOrDefault(entry.getKey(), 0));
      shares.put(entry.getKey(), share);
      if (endpoints == 0) {
        withoutEndpoints += share;
      } else if (share > 0) {
        crowding.put(entry.getKey(), total * share / endpoints);
      }
    }
    double spilled = smallestSpill(shares, crowding, withoutEndpoints, tolerance);
    var local = new TreeMap<String, Double>();
    for (var zone : shares.keySet()) {
      var c = crowding.get(zone);
      boolean hasEndpoints = endpointsPerZone.getOrDefault(zone, 0) > 0;
      local.put(zone, !hasEndpoints ? 0.0 : c == null ? 1.0 : keep(tolerance, spilled, c));
    }
    return new Fractions(local, spilled);
  }

  /**
   * The expected share of new connections of one endpoint in each zone that has endpoints, over the
   * mean share 1/N, when the zones keep {@code fractions}; empty when the demand is unknown.
   */
  public static SortedMap<String, Double> loadsOverMean(
      Map<String, Integer> endpointsPerZone, ZoneDemand demand, Fractions fractions) {
    long total = 0;
    for (var count : endpointsPerZone.values()) {
      total += Math.max(0, count);
    }
    var loads = new TreeMap<String, Double>();
    double sum = demand.shares().values().stream().mapToDouble(Double::doubleValue).sum();
    if (!demand.isKnown() || total == 0 || !(sum > 0)) {
      return loads;
    }
    double spilled = 0;
    for (var entry : demand.shares().entrySet()) {
      spilled += entry.getValue() / sum * (1 - fractions.localFraction(entry.getKey()));
    }
    for (var entry : endpointsPerZone.entrySet()) {
      int endpoints = entry.getValue();
      if (endpoints <= 0) {
        continue;
      }
      double share = demand.shares().getOrDefault(entry.getKey(), 0.0) / sum;
      double load = share * fractions.localFraction(entry.getKey()) / endpoints + spilled / total;
      loads.put(entry.getKey(), load * total);
    }
    return loads;
  }

  /** The smallest S with f(S) ≤ S; f is linear between the points where a zone starts to spill. */
  private static double smallestSpill(
      Map<String, Double> shares,
      Map<String, Double> crowding,
      double withoutEndpoints,
      double tolerance) {
    var points = new TreeSet<Double>();
    points.add(withoutEndpoints);
    points.add(1.0);
    for (var c : crowding.values()) {
      double start = tolerance - c;
      if (start > withoutEndpoints && start < 1) {
        points.add(start);
      }
    }
    Double previous = null;
    double previousGap = 0;
    for (var point : points) {
      double gap = point - produced(point, shares, crowding, withoutEndpoints, tolerance);
      if (gap >= -EPSILON) {
        if (previous == null) {
          return point;
        }
        return previous + (-previousGap) * (point - previous) / (gap - previousGap);
      }
      previous = point;
      previousGap = gap;
    }
    return 1.0;
  }

  /** f(S): the spill that results when every zone keeps what S lets it. */
  private static double produced(
      double spill,
      Map<String, Double> shares,
      Map<String, Double> crowding,
      double withoutEndpoints,
      double tolerance) {
    double produced = withoutEndpoints;
    for (var entry : crowding.entrySet()) {
      produced += shares.get(entry.getKey()) * (1 - keep(tolerance, spill, entry.getValue()));
    }
    return produced;
  }

  private static double keep(double tolerance, double spill, double crowding) {
    return Math.max(0, Math.min(1, (tolerance - spill) / crowding));
  }

  /**
   * The fraction of each zone's new connections that stays on the endpoints its hints select.
   *
   * @param local zone to fraction, for the zones of the demand; empty when the demand is unknown
   * @param spilled the share of all connections spread over every endpoint
   */
  public record Fractions(SortedMap<String, Double> local, double spilled) {
    static final Fractions UNKNOWN = new Fractions(new TreeMap<>(), 0);

    public Fractions {
      local = Collections.unmodifiableSortedMap(new TreeMap<>(local));
    }

    /** The fraction zone {@code zone} keeps; 1 (today's behaviour) for a zone of unknown demand. */
    public double localFraction(String zone) {
      return local.getOrDefault(zone, 1.0);
    }

    /** True when the demand is known, so that the fractions mean something. */
    public boolean known() {
      return !local.isEmpty();
    }

    /**
     * True when a zone with endpoints keeps less than everything: spill-over changes where traffic
     * goes. Zones without endpoints spread their traffic anyway and do not count.
     */
    public boolean spills(Map<String, Integer> endpointsPerZone) {
      return local.entrySet().stream()
          .anyMatch(e -> e.getValue() < 1 && endpointsPerZone.getOrDefault(e.getKey(), 0) > 0);
    }
  }
}
