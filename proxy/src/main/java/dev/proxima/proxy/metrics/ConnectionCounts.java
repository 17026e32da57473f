package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One family's connection counters as the kernel holds them: new connections dispatched, by the
 * locality of the endpoint chosen, and connections dropped or rejected for lack of endpoints; and
 * per counted Service port, its connections by locality.
 */
public record ConnectionCounts(
    Map<Locality, Long> byLocality,
    long withoutEndpoints,
    Map<ServicePortName, Map<Locality, Long>> byServicePort) {
  public ConnectionCounts {
    byLocality = complete(byLocality);
    var ports = new TreeMap<ServicePortName, Map<Locality, Long>>();
    byServicePort.forEach((port, counts) -> ports.put(port, complete(counts)));
    byServicePort = java.util.Collections.unmodifiableSortedMap(ports);
  }

  /** Counts without any Service port counted. */
  public ConnectionCounts(Map<Locality, Long> byLocality, long withoutEndpoints) {
    this(byLocality, withoutEndpoints, Map.of());
  }

  /** Every locality, 0 where {@code counts} has none. */
  static Map<Locality, Long> complete(Map<Locality, Long> counts) {
    var copy = new EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      copy.put(locality, counts.getOrDefault(locality, 0L));
    }
    return Map.copyOf(copy);
  }
}
