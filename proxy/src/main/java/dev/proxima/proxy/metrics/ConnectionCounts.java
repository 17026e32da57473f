package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import dev.proxima.proxy.model.ServicePortName;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One family's connection counters as the kernel holds them: new connections dispatched, by the
 * locality of the endpoint chosen, and connections dropped or rejected for lack of endpoints; and
 * per counted Service port, its connections by locality.
 */
public record ConnectionCounts(
    Map<Locality, Long> byLocality, long withoutEndpoints, ServicePortCounts servicePorts) {
  public ConnectionCounts {
    byLocality = complete(byLocality);
    java.util.Objects.requireNonNull(servicePorts, "servicePorts");
  }

  /** Counts with each counted Service port's given as a map (a locality it lacks is 0). */
  public ConnectionCounts(
      Map<Locality, Long> byLocality,
      long withoutEndpoints,
      Map<ServicePortName, Map<Locality, Long>> byServicePort) {
    this(byLocality, withoutEndpoints, ServicePortCounts.of(byServicePort));
  }

  public ConnectionCounts(Map<Locality, Long> byLocality, long withoutEndpoints) {
    this(byLocality, withoutEndpoints, ServicePortCounts.NONE);
  }

  /** Every locality, 0 where {@code counts} has none. */
  static Map<Locality, Long> complete(Map<Locality, Long> counts) {
    var copy = new EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      copy.put(locality, counts.getOrDefault(locality, 0L));
    }
    return Map.copyOf(copy);
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
    return Optional.of(new ConnectionCounts(byLocality, counters.get(withoutEndpoints)));
  }
}
