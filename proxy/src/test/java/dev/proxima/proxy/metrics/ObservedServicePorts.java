package dev.proxima.proxy.metrics;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.Collection;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * For tests: the whole choice of {@link dev.proxima.proxy.plan.ObservedPortCap} over a set of ports
 * at once. Which Service ports get per-Service locality counters. Each counted port costs one
 * series per locality, so at most {@code maxSeries / localities} ports are counted; beyond that the
 * cap is shared fairly, round-robin across namespaces and then Services ({@link
 * dev.proxima.proxy.plan.ObservedPortCap}), so every node and every restart picks the same ones,
 * and the rest are reported as dropped rather than silently missing.
 */
public record ObservedServicePorts(SortedSet<ServicePortName> counted, int dropped) {
  /** Series one counted port adds: one per locality. */
  public static final int SERIES_PER_PORT = Locality.values().length;

  public ObservedServicePorts {
    counted = Collections.unmodifiableSortedSet(new TreeSet<>(counted));
  }

  /** A port in two families counts once; {@code maxSeries} 0 or less counts none. */
  public static ObservedServicePorts choose(
      ObserveLocality mode, int maxSeries, Collection<ServicePort> ports) {

    var cap = new dev.proxima.proxy.plan.ObservedPortCap(mode, maxSeries);
    var wanted = new TreeSet<ServicePortName>();
    for (ServicePort port : ports) {
      if (cap.wants(port)) {
        wanted.add(port.name());
      }
    }
    cap.wantAll(wanted);
    var counted = new TreeSet<ServicePortName>();
    for (ServicePortName name : wanted) {
      if (cap.counted(name)) {
        counted.add(name);
      }
    }
    return new ObservedServicePorts(counted, wanted.size() - counted.size());
  }
}
