package dev.proxima.proxy.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Connections by locality of each of a set of Service ports, sorted by port. Each port's figures
 * are one array rather than a map of boxed counts: every port counted at 10,000 Services is 40,000
 * figures, read on every scrape. Immutable.
 */
public final class ServicePortCounts {
  private static final Locality[] LOCALITIES = Locality.values();

  public static final ServicePortCounts NONE = new ServicePortCounts(new TreeMap<>());

  private final SortedMap<ServicePortName, long[]> byPort;

  private ServicePortCounts(SortedMap<ServicePortName, long[]> byPort) {
    this.byPort = byPort;
  }

  /** A locality a port lacks is 0. */
  public static ServicePortCounts of(Map<ServicePortName, Map<Locality, Long>> byPort) {
    var counts = new TreeMap<ServicePortName, long[]>();
    byPort.forEach(
        (port, byLocality) -> {
          var figures = new long[LOCALITIES.length];
          byLocality.forEach((locality, count) -> figures[locality.ordinal()] = count);
          counts.put(port, figures);
        });
    return ofFigures(counts);
  }

  /**
   * @param byPort one figure per locality, in {@link Locality} order; handed over, never changed
   */
  public static ServicePortCounts ofFigures(SortedMap<ServicePortName, long[]> byPort) {
    return byPort.isEmpty() ? NONE : new ServicePortCounts(byPort);
  }

  public boolean isEmpty() {
    return byPort.isEmpty();
  }

  public Set<ServicePortName> ports() {
    return Collections.unmodifiableSet(byPort.keySet());
  }

  public boolean has(ServicePortName port) {
    return byPort.containsKey(port);
  }

  public long count(ServicePortName port, Locality locality) {
    var figures = byPort.get(port);
    return figures == null ? 0 : figures[locality.ordinal()];
  }

  /** For the few readers that want maps (explain, tests). */
  public SortedMap<ServicePortName, Map<Locality, Long>> asMap() {
    var map = new TreeMap<ServicePortName, Map<Locality, Long>>();
    byPort.forEach(
        (port, figures) -> {
          var byLocality = new EnumMap<Locality, Long>(Locality.class);
          for (var locality : LOCALITIES) {
            byLocality.put(locality, figures[locality.ordinal()]);
          }
          map.put(port, Collections.unmodifiableMap(byLocality));
        });
    return Collections.unmodifiableSortedMap(map);
  }

  /** The figures of a port in both added up. */
  public ServicePortCounts plus(ServicePortCounts other) {
    if (other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return other;
    }
    var sum = new TreeMap<ServicePortName, long[]>();
    byPort.forEach((port, figures) -> sum.put(port, figures.clone()));
    other.byPort.forEach(
        (port, figures) ->
            sum.merge(
                port,
                figures.clone(),
                (mine, theirs) -> {
                  for (int i = 0; i < mine.length; i++) {
                    mine[i] += theirs[i];
                  }
                  return mine;
                }));
    return new ServicePortCounts(sum);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ServicePortCounts that && asMap().equals(that.asMap());
  }

  @Override
  public int hashCode() {
    return asMap().hashCode();
  }

  @Override
  public String toString() {
    return asMap().toString();
  }
}
