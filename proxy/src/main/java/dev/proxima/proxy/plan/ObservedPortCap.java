package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of one family's Service ports are counted per locality, kept up to date port by port: the
 * same choice as {@code metrics.ObservedServicePorts.choose} (the first {@code maxSeries / 4}
 * wanted ports in namespace, name, port order), at a cost that follows the change rather than the
 * number of Services. A port that comes in before the last counted one pushes that one out; a
 * counted port that goes lets the first one left out in. Those are the only other ports whose
 * counting changes, so a partial sync re-renders at most one more port per changed one.
 */
public final class ObservedPortCap {
  private final ObserveLocality mode;
  private final int maxPorts;
  private final TreeSet<ServicePortName> counted = new TreeSet<>();
  private final TreeSet<ServicePortName> leftOut = new TreeSet<>();

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
   * @return the other ports whose counting this changes: at most one
   */
  public Set<ServicePortName> want(ServicePortName port, boolean wanted) {
    if (wanted) {
      if (counted.contains(port) || leftOut.contains(port)) {
        return Set.of();
      }
      if (counted.size() < maxPorts) {
        counted.add(port);
        return Set.of();
      }
      if (maxPorts > 0 && port.compareTo(counted.last()) < 0) {
        var pushedOut = counted.pollLast();
        leftOut.add(pushedOut);
        counted.add(port);
        return Set.of(pushedOut);
      }
      leftOut.add(port);
      return Set.of();
    }
    if (counted.remove(port)) {
      if (!leftOut.isEmpty()) {
        var letIn = leftOut.pollFirst();
        counted.add(letIn);
        return Set.of(letIn);
      }
      return Set.of();
    }
    leftOut.remove(port);
    return Set.of();
  }

  /** Whether the port is counted now. */
  public boolean counted(ServicePortName port) {
    return counted.contains(port);
  }

  /** How many ports want counting but the cap leaves out. */
  public int dropped() {
    return leftOut.size();
  }

  /** Forgets every port, for a full sync. */
  public void clear() {
    counted.clear();
    leftOut.clear();
  }
}
