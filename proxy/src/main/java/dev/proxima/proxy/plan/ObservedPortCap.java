package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which of one family's Service ports are counted per locality under the series cap, shared fairly:
 * round-robin across namespaces, and within a namespace round-robin across its Services, in name
 * order. Every namespace's first port is counted before any namespace's second; within a namespace
 * every Service's first port before any Service's second. One Service or namespace with a thousand
 * ports cannot push every other tenant's counters out.
 *
 * <p>Each wanted port has a rank: its position in its namespace's round-robin. The counted ports
 * are the first {@code maxSeries / 4} by (rank, namespace, name). A change re-ranks the changed
 * port's namespace only and compares the first {@code maxPorts} before and after, so its cost
 * follows the namespace and the cap, not the number of Services. The live proxy, {@code render} and
 * {@code explain} all use this class, so they agree on what is counted.
 */
public final class ObservedPortCap {
  private final ObserveLocality mode;
  private final int maxPorts;

  /** The wanted ports of each namespace. */
  private final Map<String, TreeSet<ServicePortName>> byNamespace = new HashMap<>();

  private final Map<ServicePortName, Ranked> rankOf = new HashMap<>();
  private final TreeSet<Ranked> ranked = new TreeSet<>(ORDER);
  private Set<ServicePortName> counted = Set.of();

  private record Ranked(int rank, ServicePortName name) {}

  private static final Comparator<Ranked> ORDER =
      Comparator.comparingInt(Ranked::rank)
          .thenComparing(r -> r.name().service().namespace())
          .thenComparing(Ranked::name);

  /**
   * @param mode which ports want counting
   * @param maxSeries the cap on series; four per port
   */
  public ObservedPortCap(ObserveLocality mode, int maxSeries) {
    this.mode = mode;
    this.maxPorts = Math.max(0, maxSeries) / Locality.values().length;
  }

  /** Whether {@code port} wants counting in this mode (before the cap). */
  public boolean wants(ServicePort port) {
    return mode == ObserveLocality.ALL || (mode.counts() && port.observeLocality());
  }

  /**
   * Records whether a port (there or gone) wants counting.
   *
   * @return the other ports whose counting this changes
   */
  public Set<ServicePortName> want(ServicePortName port, boolean wanted) {
    var namespace = port.service().namespace();
    var ports = byNamespace.get(namespace);
    boolean known = ports != null && ports.contains(port);
    if (wanted == known) {
      return Set.of();
    }
    if (wanted) {
      byNamespace.computeIfAbsent(namespace, k -> new TreeSet<>()).add(port);
    } else {
      ports.remove(port);
      if (ports.isEmpty()) {
        byNamespace.remove(namespace);
      }
      ranked.remove(rankOf.remove(port));
    }
    rerank(namespace);
    var before = counted;
    counted = firstCounted();
    var flipped = new TreeSet<ServicePortName>();
    for (var name : before) {
      if (!counted.contains(name)) {
        flipped.add(name);
      }
    }
    for (var name : counted) {
      if (!before.contains(name)) {
        flipped.add(name);
      }
    }
    flipped.remove(port);
    return flipped;
  }

  /** Whether the port is counted now. */
  public boolean counted(ServicePortName port) {
    return counted.contains(port);
  }

  /** Whether the port wants counting (as last told) but the cap leaves it out. */
  public boolean leftOut(ServicePortName port) {
    return rankOf.containsKey(port) && !counted.contains(port);
  }

  /** How many ports want counting but the cap leaves out. */
  public int dropped() {
    return rankOf.size() - counted.size();
  }

  /**
   * Every port that wants counting, for a full sync: the same choice as {@link #want} one by one,
   * in O(n log n).
   */
  public void wantAll(Iterable<ServicePortName> wanted) {
    clear();
    for (var port : wanted) {
      byNamespace.computeIfAbsent(port.service().namespace(), k -> new TreeSet<>()).add(port);
    }
    byNamespace.keySet().forEach(this::rerank);
    counted = firstCounted();
  }

  /** Forgets every port, for a full sync. */
  public void clear() {
    byNamespace.clear();
    rankOf.clear();
    ranked.clear();
    counted = Set.of();
  }

  /** Ranks a namespace's ports: each Service's i-th port, Services in name order, then i+1. */
  private void rerank(String namespace) {
    var ports = byNamespace.getOrDefault(namespace, new TreeSet<>());
    var byService = new TreeMap<dev.proxima.model.ObjectKey, List<ServicePortName>>();
    for (var name : ports) {
      byService.computeIfAbsent(name.service(), k -> new ArrayList<>()).add(name);
    }
    int rank = 0;
    for (int round = 0; rank < ports.size(); round++) {
      for (var servicePorts : byService.values()) {
        if (round < servicePorts.size()) {
          var name = servicePorts.get(round);
          var old = rankOf.get(name);
          if (old == null || old.rank() != rank) {
            if (old != null) {
              ranked.remove(old);
            }
            var now = new Ranked(rank, name);
            rankOf.put(name, now);
            ranked.add(now);
          }
          rank++;
        }
      }
    }
  }

  private Set<ServicePortName> firstCounted() {
    var result = new HashSet<ServicePortName>();
    for (var entry : ranked) {
      if (result.size() >= maxPorts) {
        break;
      }
      result.add(entry.name());
    }
    return result;
  }
}
