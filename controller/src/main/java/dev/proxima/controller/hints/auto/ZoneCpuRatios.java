package dev.proxima.controller.hints.auto;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Each zone's share of the cluster's allocatable CPU, computed as upstream's TopologyCache.SetNodes
 * does. Either the node information is insufficient (upstream's nil ratio map, which disables Auto
 * hints for every Service) or it holds a ratio per zone.
 *
 * <p>Zones are kept in name order; see {@link AutoHintPlanner} for why that order is conformant.
 */
public final class ZoneCpuRatios {
  private static final String READY = "Ready";
  private static final ZoneCpuRatios INSUFFICIENT = new ZoneCpuRatios(null, Map.of());

  private final SortedMap<String, Double> ratios;
  private final SortedMap<String, Long> milliCpuByZone;

  private ZoneCpuRatios(Map<String, Double> ratios, Map<String, Long> milliCpuByZone) {
    this.ratios = ratios == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(ratios));
    this.milliCpuByZone = Collections.unmodifiableSortedMap(new TreeMap<>(milliCpuByZone));
  }

  /** No usable node information: upstream's state after SetNodes gave up. */
  public static ZoneCpuRatios insufficient() {
    return INSUFFICIENT;
  }

  /**
   * Ratios given directly, as upstream's tests set them. A map with fewer than two zones is
   * accepted, unlike from {@link #fromNodes}, and leads to the "Nodes only ready in one zone"
   * refusal.
   */
  public static ZoneCpuRatios of(Map<String, Double> ratios) {
    return new ZoneCpuRatios(Objects.requireNonNull(ratios, "ratios"), Map.of());
  }

  /**
   * Upstream's SetNodes over every Node the lister holds.
   *
   * <ul>
   *   <li>Nodes labelled control-plane or master (any value) are skipped, and so are nodes whose
   *       Ready condition is not True or is missing, before anything else is looked at.
   *   <li>A remaining node without a zone label, with an empty one, or with zero (or missing)
   *       allocatable CPU makes the whole information insufficient.
   *   <li>So does a total of zero or fewer than two zones.
   *   <li>Otherwise a zone's ratio is its milli-CPU divided by the total milli-CPU, as doubles.
   * </ul>
   */
  public static ZoneCpuRatios fromNodes(List<Node> nodes) {
    var coresByZone = new TreeMap<String, BigDecimal>();
    var totalCores = BigDecimal.ZERO;
    for (var node : nodes) {
      var labels = labels(node);
      if (labels.containsKey(Labels.CONTROL_PLANE_ROLE)
          || labels.containsKey(Labels.LEGACY_MASTER_ROLE)
          || !isReady(node)) {
        continue;
      }
      var zone = labels.get(Labels.ZONE);
      var cores = CpuQuantity.cores(allocatableCpu(node));
      if (zone == null || zone.isEmpty() || cores.signum() == 0) {
        return INSUFFICIENT;
      }
      totalCores = totalCores.add(cores);
      coresByZone.merge(zone, cores, BigDecimal::add);
    }
    if (totalCores.signum() == 0 || coresByZone.size() < 2) {
      return INSUFFICIENT;
    }
    var milliByZone = new TreeMap<String, Long>();
    var ratios = new TreeMap<String, Double>();
    double totalMilli = CpuQuantity.milli(totalCores);
    coresByZone.forEach(
        (zone, cores) -> {
          long milli = CpuQuantity.milli(cores);
          milliByZone.put(zone, milli);
          ratios.put(zone, (double) milli / totalMilli);
        });
    return new ZoneCpuRatios(ratios, milliByZone);
  }

  /** False when upstream's ratio map would be nil: every Auto Service then loses its hints. */
  public boolean sufficientNodeInfo() {
    return ratios != null;
  }

  /** Zone to share of CPU, in zone order; empty when the information is insufficient. */
  public SortedMap<String, Double> ratios() {
    return ratios == null ? Collections.emptySortedMap() : ratios;
  }

  /** Zone to allocatable milli-CPU; empty when insufficient or when built with {@link #of}. */
  public SortedMap<String, Long> milliCpuByZone() {
    return milliCpuByZone;
  }

  private static Map<String, String> labels(Node node) {
    var metadata = node.getMetadata();
    return metadata == null || metadata.getLabels() == null ? Map.of() : metadata.getLabels();
  }

  private static boolean isReady(Node node) {
    var status = node.getStatus();
    if (status == null || status.getConditions() == null) {
      return false;
    }
    for (var condition : status.getConditions()) {
      if (READY.equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  private static Quantity allocatableCpu(Node node) {
    var status = node.getStatus();
    return status == null || status.getAllocatable() == null
        ? null
        : status.getAllocatable().get("cpu");
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ZoneCpuRatios that
        && Objects.equals(ratios, that.ratios)
        && milliCpuByZone.equals(that.milliCpuByZone);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ratios, milliCpuByZone);
  }

  @Override
  public String toString() {
    return ratios == null ? "ZoneCpuRatios[insufficient]" : "ZoneCpuRatios" + ratios;
  }
}
