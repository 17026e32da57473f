package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ProxyMetrics;
import java.time.Clock;
import java.time.Duration;

/**
 * After a sync that loaded a change to a UDP Service port, deletes the conntrack entries that would
 * keep sending its flows to endpoints that no longer serve.
 */
final class UdpFlowCleanup implements SyncObserver {
  private final Host host;
  private final ProxyMetrics metrics;
  private final Clock clock;

  UdpFlowCleanup(Host host, ProxyMetrics metrics, Clock clock) {
    this.host = host;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public void synced(SyncResult result) {
    if (result.outcome() != SyncResult.Outcome.LOADED || !result.touchedUdp()) {
      return;
    }
    var started = clock.instant();
    int deleted = host.deleteStaleUdpFlows(result.family(), result.plan().ports());
    metrics.conntrackReconciled(
        result.family(), Duration.between(started, clock.instant()), deleted);
  }
}
