package dev.proxima.proxy.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Connections by locality of each of a set of Service ports, kept in two arrays rather than a map
 * per port: every port counted at 10,000 Services is 40,000 figures, read on every scrape, and as
 * maps of boxed counts they cost several MiB of heap per copy and tens of MiB of garbage per read.
 * Immutable once built.
 */
public final class ServicePortCounts {
  private static final Locality[] LOCALITIES = Locality.values();

  /** Figures per port: one per locality. */
  public static final int PER_PORT = LOCALITIES.length;

  public static final ServicePortCounts NONE =
      new ServicePortCounts(new ServicePortName[0], new long[0]);

  private final ServicePortName[] ports;
  private final long[] counts;

  /**
   * @param ports sorted and distinct; shared, never changed
   * @param counts {@code ports.length * PER_PORT} figures, port by port in locality order
   */
  ServicePortCounts(ServicePortName[] ports, long[] counts) {
    if (counts.length != ports.length * PER_PORT) {
      throw new IllegalArgumentException("counts do not match the ports");
    }
    this.ports = ports;
    this.counts = counts;
  }

  /** From a map of ports to their counts (a locality a port lacks is 0). */
  public static ServicePortCounts of(Map<ServicePortName, Map<Locality, Long>> byPort) {
    if (byPort.isEmpty()) {
      return NONE;
    }
    var sorted = new TreeMap<>(byPort);
    var ports = sorted.keySet().toArray(new ServicePortName[0]);
    var builder = new Builder(ports);
    int i = 0;
    for (var counts : sorted.values()) {
      for (var locality : LOCALITIES) {
        builder.add(i, locality, counts.getOrDefault(locality, 0L));
      }
      i++;
    }
    return builder.build();
  }

  public int size() {
    return ports.length;
  }

  public boolean isEmpty() {
    return ports.length == 0;
  }

  public ServicePortName port(int index) {
    return ports[index];
  }

  public long count(int index, Locality locality) {
    return counts[index * PER_PORT + locality.ordinal()];
  }

  /** The same figures as sorted maps, for the few readers that want them (explain, tests). */
  public SortedMap<ServicePortName, Map<Locality, Long>> asMap() {
    var map = new TreeMap<ServicePortName, Map<Locality, Long>>();
    for (int i = 0; i < ports.length; i++) {
      var byLocality = new EnumMap<Locality, Long>(Locality.class);
      for (var locality : LOCALITIES) {
        byLocality.put(locality, count(i, locality));
      }
      map.put(ports[i], Collections.unmodifiableMap(byLocality));
    }
    return Collections.unmodifiableSortedMap(map);
  }

  /**
   * These figures plus {@code perPort}, port by port in locality order as {@link #count} reads
   * them.
   */
  public ServicePortCounts plus(long[] perPort) {
    if (perPort.length != counts.length) {
      throw new IllegalArgumentException("figures do not match the ports");
    }
    var sum = counts.clone();
    for (int i = 0; i < sum.length; i++) {
      sum[i] += perPort[i];
    }
    return new ServicePortCounts(ports, sum);
  }

  /** Both sets of ports, with the figures of a port in both added up. */
  public ServicePortCounts plus(ServicePortCounts other) {
    if (other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return other;
    }
    var union = new ServicePortName[ports.length + other.ports.length];
    var sum = new long[union.length * PER_PORT];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < ports.length || j < other.ports.length) {
      int order =
          i == ports.length ? 1 : j == other.ports.length ? -1 : ports[i].compareTo(other.ports[j]);
      if (order <= 0) {
        System.arraycopy(counts, i * PER_PORT, sum, n * PER_PORT, PER_PORT);
        union[n] = ports[i++];
      }
      if (order >= 0) {
        for (int l = 0; l < PER_PORT; l++) {
          sum[n * PER_PORT + l] += other.counts[j * PER_PORT + l];
        }
        union[n] = other.ports[j++];
      }
      n++;
    }
    return new ServicePortCounts(
        Arrays.copyOf(union, n), n == union.length ? sum : Arrays.copyOf(sum, n * PER_PORT));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ServicePortCounts that
        && Arrays.equals(ports, that.ports)
        && Arrays.equals(counts, that.counts);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(ports) + Arrays.hashCode(counts);
  }

  @Override
  public String toString() {
    return asMap().toString();
  }

  /** Adds up figures for a fixed set of ports, each at 0 to start with. */
  public static final class Builder {
    private final ServicePortName[] ports;
    private long[] counts;

    /**
     * @param sortedPorts the ports, sorted and distinct; kept, so the caller must not change it
     */
    public Builder(ServicePortName[] sortedPorts) {
      this.ports = sortedPorts;
      this.counts = new long[sortedPorts.length * PER_PORT];
    }

    /**
     * Adds {@code count} to the port at {@code index} (in the sorted ports) for {@code locality}.
     */
    public Builder add(int index, Locality locality, long count) {
      counts[index * PER_PORT + locality.ordinal()] += count;
      return this;
    }

    public ServicePortCounts build() {
      var built = new ServicePortCounts(ports, counts);
      counts = null;
      return built;
    }
  }
}
