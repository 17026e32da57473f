package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import java.util.EnumMap;
import java.util.Map;

/**
 * One family's connection counters as the kernel holds them: new connections dispatched, by the
 * locality of the endpoint chosen, and connections dropped or rejected for lack of endpoints.
 */
public record ConnectionCounts(Map<Locality, Long> byLocality, long withoutEndpoints) {
  public ConnectionCounts {
    var copy = new EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      copy.put(locality, byLocality.getOrDefault(locality, 0L));
    }
    byLocality = Map.copyOf(copy);
  }
}
