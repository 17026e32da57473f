package dev.proxima.model;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Each zone's share of the connections a Service's clients open, as proxima-controller publishes it
 * for the proxies: the zone's share of the allocatable CPU of ready, schedulable nodes, the same
 * ratio the topology-mode Auto heuristic allocates endpoints by. It travels as the data of the
 * ConfigMap {@value #CONFIG_MAP_NAME} in the controller's namespace, one key per zone, the value a
 * decimal share with {@value #DECIMALS} decimals, so the object stays small and changes only when a
 * share moves by at least a thousandth.
 *
 * <p>{@link #unknown()} (no zones) stands for "not known": the node information is insufficient,
 * the object is missing or holds something unexpected. Spill-over then keeps today's behaviour.
 */
public final class ZoneDemand {
  /** The ConfigMap, in the controller's namespace, that carries the shares. */
  public static final String CONFIG_MAP_NAME = "proxima-zone-demand";

  /** Decimals of a published share. */
  public static final int DECIMALS = 3;

  /**
   * At most this many zones are published: a cluster with more publishes nothing (unknown), which
   * bounds the object to a few kilobytes whatever the Nodes say.
   */
  public static final int MAX_ZONES = 100;

  // A label value, the form topology.kubernetes.io/zone takes; also a valid ConfigMap key.
  private static final Pattern ZONE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)");
  // Shares written with DECIMALS decimals may not sum to exactly one; anything further off is
  // not what the controller wrote.
  private static final double SUM_SLACK = 0.01;
  private static final ZoneDemand UNKNOWN = new ZoneDemand(new TreeMap<>());

  private final SortedMap<String, Double> shares;

  private ZoneDemand(SortedMap<String, Double> shares) {
    this.shares = Collections.unmodifiableSortedMap(shares);
  }

  public static ZoneDemand unknown() {
    return UNKNOWN;
  }

  /**
   * The demand from zone CPU ratios, each rounded to {@value #DECIMALS} decimals; unknown when
   * there are fewer than two zones (one zone has nothing to spill to), more than {@value
   * #MAX_ZONES}, or a zone name a label could not hold.
   */
  public static ZoneDemand ofRatios(Map<String, Double> ratios) {
    if (ratios.size() < 2 || ratios.size() > MAX_ZONES) {
      return UNKNOWN;
    }
    var shares = new TreeMap<String, Double>();
    for (var entry : ratios.entrySet()) {
      var share = entry.getValue();
      if (!ZONE.matcher(entry.getKey()).matches() || share == null || !(share >= 0 && share <= 1)) {
        return UNKNOWN;
      }
      shares.put(entry.getKey(), round(share));
    }
    return new ZoneDemand(shares);
  }

  /** Reads a published ConfigMap's data; anything but what {@link #data()} writes is refused. */
  public static Parsed parse(Map<String, String> data) {
    if (data == null || data.isEmpty()) {
      return new Parsed(UNKNOWN, List.of());
    }
    if (data.size() > MAX_ZONES) {
      return refused("more than " + MAX_ZONES + " zones");
    }
    var shares = new TreeMap<String, Double>();
    double sum = 0;
    for (var entry : data.entrySet()) {
      var zone = entry.getKey();
      var value = entry.getValue();
      if (zone == null || !ZONE.matcher(zone).matches()) {
        return refused("a key that is not a zone name");
      }
      double share;
      try {
        share = value == null || value.length() > 8 ? Double.NaN : Double.parseDouble(value);
      } catch (NumberFormatException notANumber) {
        share = Double.NaN;
      }
      if (!(share >= 0 && share <= 1)) {
        return refused("zone " + zone + " has a share that is not a decimal from 0 to 1");
      }
      shares.put(zone, share);
      sum += share;
    }
    if (shares.size() < 2) {
      return refused("fewer than two zones");
    }
    if (Math.abs(sum - 1) > SUM_SLACK) {
      return refused("shares that sum to " + sum + ", not 1");
    }
    return new Parsed(new ZoneDemand(shares), List.of());
  }

  /**
   * The outcome of {@link #parse}.
   *
   * @param demand what was read; unknown when refused
   * @param problems why the data was refused, for a warning; empty when accepted or empty
   */
  public record Parsed(ZoneDemand demand, List<String> problems) {
    public Parsed {
      problems = List.copyOf(problems);
    }
  }

  private static Parsed refused(String problem) {
    return new Parsed(UNKNOWN, List.of(CONFIG_MAP_NAME + " holds " + problem + "; demand unknown"));
  }

  public boolean isKnown() {
    return !shares.isEmpty();
  }

  /** Zone to share, in zone order; empty when unknown. */
  public SortedMap<String, Double> shares() {
    return shares;
  }

  /** The ConfigMap data: zone to its share with {@value #DECIMALS} decimals. */
  public SortedMap<String, String> data() {
    var data = new TreeMap<String, String>();
    shares.forEach(
        (zone, share) ->
            data.put(
                zone,
                BigDecimal.valueOf(share)
                    .setScale(DECIMALS, RoundingMode.HALF_EVEN)
                    .toPlainString()));
    return data;
  }

  private static double round(double share) {
    return BigDecimal.valueOf(share).setScale(DECIMALS, RoundingMode.HALF_EVEN).doubleValue();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ZoneDemand that && shares.equals(that.shares);
  }

  @Override
  public int hashCode() {
    return shares.hashCode();
  }

  @Override
  public String toString() {
    return isKnown() ? "ZoneDemand" + shares : "ZoneDemand[unknown]";
  }
}
