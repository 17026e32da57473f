package dev.proxima.proxy.plan;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Which of one family's Service ports are counted per locality under the series cap, shared fairly:
 * round-robin across namespaces, and within a namespace round-robin across its Services, in name
 * order. Every namespace's first port is counted before any namespace's second; within a namespace
 * every Service's first port before any Service's second. One Service or namespace with a thousand
 * ports cannot push every other tenant's counters out.
 *
 * <p>The choice is kept as three levels of "the first k of a sorted set". A namespace with n ports
 * holds the turns (0, namespace) to (n-1, namespace) of the round-robin across namespaces, and the
 * first {@code maxSeries / 4} turns of all namespaces by (turn, namespace) are counted: a
 * namespace's quota is how many of its turns that is. Within a namespace, a Service with m ports
 * holds the turns (0, Service) to (m-1, Service), and the namespace's quota picks its first turns
 * the same way; a Service's counted ports are its first ones by name, as many as it got turns. A
 * port that comes or goes adds or removes one turn at each level, which moves at most a few turns
 * across each boundary, so one change costs O(log P) and a sync of P changes O(P log P). The live
 * proxy, {@code render} and {@code explain} all use this class, so they agree on what is counted.
 */
public final class ObservedPortCap {
  private final ObserveLocality mode;

  /** Comparisons made, so a test can bound the work of a sync without timing it. */
  private long comparisons;

  private final FirstK<Turn<String>> namespaces =
      new FirstK<>(turnOrder(), this::namespaceTurnMoved);

  private final Comparator<ServicePortName> portOrder =
      counting(Comparator.<ServicePortName>naturalOrder());

  private final Map<String, Namespace> byNamespace = new HashMap<>();
  private final Map<ServicePortName, FirstK<ServicePortName>> portsOf = new HashMap<>();

  /** The ports whose counting the change at hand flipped an odd number of times. */
  private final Set<ServicePortName> flipped = new TreeSet<>();

  /** The round-robin's {@code round}-th turn of {@code owner} (a namespace or a Service). */
  private record Turn<T>(int round, T owner) {}

  /** A namespace's Services' turns, split by the namespace's quota, and its ports per Service. */
  private final class Namespace {
    final FirstK<Turn<ObjectKey>> services = new FirstK<>(turnOrder(), this::serviceTurnMoved);
    final Map<ObjectKey, FirstK<ServicePortName>> byService = new HashMap<>();
    int size;

    /** A Service's turn came in or went out: one more or one fewer of its ports is counted. */
    private void serviceTurnMoved(Turn<ObjectKey> turn, boolean in) {
      var ports = byService.get(turn.owner());
      ports.target(ports.target() + (in ? 1 : -1));
    }
  }

  /** Four series per port count against {@code maxSeries}. */
  public ObservedPortCap(ObserveLocality mode, int maxSeries) {
    this.mode = mode;
    namespaces.target(Math.max(0, maxSeries) / Locality.values().length);
  }

  /** Whether {@code port} wants counting in this mode (before the cap). */
  public boolean wants(ServicePort port) {
    return mode == ObserveLocality.ALL || (mode.counts() && port.observeLocality());
  }

  /** Records whether a port (there or gone) wants counting; returns the other ports it flips. */
  public Set<ServicePortName> want(ServicePortName port, boolean wanted) {
    if (wanted == portsOf.containsKey(port)) {
      return Set.of();
    }
    flipped.clear();
    var namespaceName = port.service().namespace();
    // A port adds or removes the last turn of its Service and of its namespace.
    if (wanted) {
      var namespace = byNamespace.computeIfAbsent(namespaceName, k -> new Namespace());
      var ports =
          namespace.byService.computeIfAbsent(
              port.service(), k -> new FirstK<>(portOrder, this::portMoved));
      portsOf.put(port, ports);
      ports.add(port);
      namespace.services.add(new Turn<>(ports.size() - 1, port.service()));
      namespaces.add(new Turn<>(namespace.size++, namespaceName));
    } else {
      var namespace = byNamespace.get(namespaceName);
      var ports = portsOf.remove(port);
      ports.remove(port);
      namespace.services.remove(new Turn<>(ports.size(), port.service()));
      namespaces.remove(new Turn<>(--namespace.size, namespaceName));
      if (ports.size() == 0) {
        namespace.byService.remove(port.service());
      }
      if (namespace.size == 0) {
        byNamespace.remove(namespaceName);
      }
    }
    flipped.remove(port);
    return Set.copyOf(flipped);
  }

  public boolean counted(ServicePortName port) {
    var ports = portsOf.get(port);
    return ports != null && ports.inFirst(port);
  }

  public int dropped() {
    return portsOf.size() - namespaces.firstSize();
  }

  /**
   * Every port that wants counting, for a full sync: the same choice as {@link #want} one by one,
   * in O(n log n).
   */
  public void wantAll(Iterable<ServicePortName> wanted) {
    clear();
    for (var port : wanted) {
      want(port, true);
    }
  }

  public void clear() {
    namespaces.clear();
    byNamespace.clear();
    portsOf.clear();
  }

  long comparisons() {
    return comparisons;
  }

  /** A namespace's turn came in or went out: its quota, and so its Services' turns, follow. */
  private void namespaceTurnMoved(Turn<String> turn, boolean in) {
    var services = byNamespace.get(turn.owner()).services;
    services.target(services.target() + (in ? 1 : -1));
  }

  private void portMoved(ServicePortName port, boolean in) {
    if (!flipped.remove(port)) {
      flipped.add(port);
    }
  }

  private <T extends Comparable<T>> Comparator<Turn<T>> turnOrder() {
    return counting(Comparator.<Turn<T>>comparingInt(Turn::round).thenComparing(Turn::owner));
  }

  private <T> Comparator<T> counting(Comparator<T> order) {
    return (a, b) -> {
      comparisons++;
      return order.compare(a, b);
    };
  }

  /**
   * A sorted set split into its first {@code target} elements and the rest. A change moves at most
   * a few elements across the split, in O(log n) each, and tells each move to the listener.
   */
  private static final class FirstK<T> {
    private final TreeSet<T> first;
    private final TreeSet<T> rest;
    private final BiConsumer<T, Boolean> moved;
    private int target;

    FirstK(Comparator<T> order, BiConsumer<T, Boolean> moved) {
      this.first = new TreeSet<>(order);
      this.rest = new TreeSet<>(order);
      this.moved = moved;
    }

    int size() {
      return first.size() + rest.size();
    }

    int firstSize() {
      return first.size();
    }

    int target() {
      return target;
    }

    boolean inFirst(T element) {
      return first.contains(element);
    }

    void add(T element) {
      if (first.size() < target) {
        first.add(element);
        moved.accept(element, true);
      } else if (target > 0 && first.comparator().compare(element, first.last()) < 0) {
        first.add(element);
        moved.accept(element, true);
        var out = first.pollLast();
        rest.add(out);
        moved.accept(out, false);
      } else {
        rest.add(element);
      }
    }

    void remove(T element) {
      if (first.remove(element)) {
        moved.accept(element, false);
        fill();
      } else {
        rest.remove(element);
      }
    }

    void target(int target) {
      this.target = target;
      while (first.size() > target) {
        var out = first.pollLast();
        rest.add(out);
        moved.accept(out, false);
      }
      fill();
    }

    private void fill() {
      while (first.size() < target && !rest.isEmpty()) {
        var in = rest.pollFirst();
        first.add(in);
        moved.accept(in, true);
      }
    }

    void clear() {
      first.clear();
      rest.clear();
    }
  }
}
