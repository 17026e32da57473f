package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.TopologyFallback;
import dev.proxima.proxy.selection.TopologyLevel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The metrics of a successful sync: duration, kind, network programming latency, ports by topology.
 * The data planes count failures: they know the tool that failed.
 */
final class SyncMetrics {
  private SyncMetrics() {}

  static void record(ProxyMetrics metrics, SyncResult result) {
    if (!result.succeeded()) {
      return;
    }
    var family = result.family();
    var finished = result.finished();
    metrics.synced(family, result.decision().full(), result.elapsed(), finished);
    result
        .triggers()
        .forEach(trigger -> metrics.networkProgrammed(family, Duration.between(trigger, finished)));
    if (result.plan() != null) {
      topology(metrics, family, result.plan().ports());
    }
  }

  private static void topology(
      ProxyMetrics metrics, IpFamily family, List<NodePlanner.PlannedPort> ports) {
    int noLocalInternal = 0;
    int noLocalExternal = 0;
    Map<String, Integer> byLevel = new TreeMap<>();
    Map<String, Integer> byFallback = new TreeMap<>();
    for (var level : TopologyLevel.values()) {
      byLevel.put(level.displayName(), 0);
    }
    for (var fallback : TopologyFallback.values()) {
      if (fallback != TopologyFallback.NONE) {
        byFallback.put(fallback.label(), 0);
      }
    }
    for (var planned : ports) {
      var port = planned.port();
      var selection = planned.selection();
      byLevel.merge(selection.topology().displayName(), 1, Integer::sum);
      if (planned.fallback() != TopologyFallback.NONE) {
        byFallback.merge(planned.fallback().label(), 1, Integer::sum);
      }
      boolean noLocal =
          selection.hasAnyEndpoints()
              && (selection.localEndpoints() == null || selection.localEndpoints().isEmpty());
      if (noLocal && port.internalTrafficLocal()) {
        noLocalInternal++;
      }
      if (noLocal && port.externalTrafficLocal() && port.externallyAccessible()) {
        noLocalExternal++;
      }
    }
    metrics.noLocalEndpoints(family, noLocalInternal, noLocalExternal);
    metrics.topology(family, byLevel, byFallback);
  }
}
