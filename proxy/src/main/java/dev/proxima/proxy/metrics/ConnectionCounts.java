package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One family's connection counters as the kernel holds them: new connections dispatched, by the
 * locality of the endpoint chosen, and connections dropped or rejected for lack of endpoints; and
 * per counted Service port, its connections by locality.
 */
public record ConnectionCounts(
    Map<Locality, Long> byLocality, long withoutEndpoints, ServicePortCounts servicePorts) {
  /** Every locality, 0 where {@code byLocality} has none. */
  public ConnectionCounts {
    var complete = new EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      complete.put(locality, byLocality.getOrDefault(locality, 0L));
    }
    byLocality = Map.copyOf(complete);
    Objects.requireNonNull(servicePorts, "servicePorts");
  }

  /**
   * Empty unless the listing holds every one of these counters (the rules are not loaded, or were
   * only partly there): a read that shows nothing, not zeros.
   */
  public static Optional<ConnectionCounts> from(
      Map<String, Long> counters, Function<Locality, String> nameOf, String withoutEndpoints) {
    if (!counters.containsKey(withoutEndpoints)) {
      return Optional.empty();
    }
    var byLocality = new EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      var count = counters.get(nameOf.apply(locality));
      if (count == null) {
        return Optional.empty();
      }
      byLocality.put(locality, count);
    }
    return Optional.of(
        new ConnectionCounts(byLocality, counters.get(withoutEndpoints), ServicePortCounts.NONE));
  }
}
