package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.plan.NodePlanner;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * After a sync that loaded a change to a UDP Service port, deletes the conntrack entries that would
 * keep sending its flows to endpoints that no longer serve: those of a Service port left without
 * endpoints (scaled to zero: the rules then reject, but only new flows see them), those of removed
 * endpoints, and every flow to the address of a UDP Service that was deleted. Nothing is wiped at
 * start: the first sync after a restart deletes only flows whose endpoint no longer serves, so a
 * restart of the proxy breaks no working UDP flow.
 */
final class UdpFlowCleanup implements SyncObserver {
  private final Host host;
  private final ProxyMetrics metrics;
  private final Clock clock;

  /** The UDP ports of the latest successful sync's plan; empty before one with a plan. */
  private List<NodePlanner.PlannedPort> previous = List.of();

  UdpFlowCleanup(Host host, ProxyMetrics metrics, Clock clock) {
    this.host = host;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public void synced(SyncResult result) {
    if (!result.succeeded() || result.plan() == null) {
      return;
    }
    var before = previous;
    previous =
        result.plan().ports().stream().filter(p -> p.port().protocol() == Protocol.UDP).toList();
    if (result.outcome() != SyncResult.Outcome.LOADED || !result.touchedUdp()) {
      return;
    }
    var started = clock.instant();
    int deleted = host.deleteStaleUdpFlows(result.family(), result.plan().ports(), before);
    metrics.conntrackReconciled(
        result.family(), Duration.between(started, clock.instant()), deleted);
  }
}
