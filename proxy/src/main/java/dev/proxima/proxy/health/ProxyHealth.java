package dev.proxima.proxy.health;

import dev.proxima.proxy.model.IpFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * The proxy's health as kube-proxy's health server defines it: unhealthy when an update was queued
 * for a family and not applied within the health timeout (2 × sync period). Nothing queued is
 * healthy, also at startup. /healthz additionally requires the Node to be eligible (it exists, is
 * not being deleted and has no {@code ToBeDeletedByClusterAutoscaler} taint); /livez does not.
 */
public final class ProxyHealth {
  private final Clock clock;
  private final Duration healthTimeout;
  private final Map<IpFamily, Instant> lastUpdated = new EnumMap<>(IpFamily.class);
  private final Map<IpFamily, Instant> oldestPendingQueued = new EnumMap<>(IpFamily.class);
  private String nodeIneligible;
  private Instant firstSyncPendingSince;

  public ProxyHealth(Clock clock, Duration healthTimeout) {
    this.clock = clock;
    this.healthTimeout = healthTimeout;
  }

  /** A change is waiting to be programmed; the first pending one starts the clock. */
  public synchronized void queued(IpFamily family) {
    oldestPendingQueued.putIfAbsent(family, clock.instant());
  }

  /** Everything queued so far is programmed. */
  public synchronized void updated(IpFamily family) {
    oldestPendingQueued.remove(family);
    lastUpdated.put(family, clock.instant());
    firstSyncPendingSince = null;
  }

  /** The proxy has started and has not programmed anything yet. */
  public synchronized void awaitingFirstSync() {
    if (lastUpdated.isEmpty()) {
      firstSyncPendingSince = clock.instant();
    }
  }

  public synchronized void nodeEligible(boolean eligible) {
    nodeIneligible(eligible ? null : "node is not eligible");
  }

  /**
   * @param why why load balancers should stop sending traffic to this node (for the /healthz body),
   *     or null when the node is eligible
   */
  public synchronized void nodeIneligible(String why) {
    nodeIneligible = why;
  }

  /** A consistent view for one response. */
  /**
   * @param firstSyncOverdue the proxy has not programmed its first ruleset within the health
   *     timeout, typically because it cannot reach the API server; /healthz reports it
   */
  public record Snapshot(
      Instant currentTime,
      Instant lastUpdated,
      boolean healthy,
      String nodeIneligible,
      boolean firstSyncOverdue,
      Map<IpFamily, FamilyStatus> status) {
    public boolean nodeEligible() {
      return nodeIneligible == null;
    }
  }

  /** One family's part of the status. */
  public record FamilyStatus(Instant lastUpdated, boolean healthy) {}

  public synchronized Snapshot snapshot() {
    var now = clock.instant();
    var status = new EnumMap<IpFamily, FamilyStatus>(IpFamily.class);
    boolean healthy = true;
    Instant latest = null;
    for (var family : IpFamily.values()) {
      var updated = lastUpdated.get(family);
      var pending = oldestPendingQueued.get(family);
      boolean familyHealthy = pending == null || !now.isAfter(pending.plus(healthTimeout));
      if (updated != null || pending != null) {
        status.put(family, new FamilyStatus(updated, familyHealthy));
      }
      healthy &= familyHealthy;
      if (updated != null && (latest == null || updated.isAfter(latest))) {
        latest = updated;
      }
    }
    boolean overdue =
        firstSyncPendingSince != null && now.isAfter(firstSyncPendingSince.plus(healthTimeout));
    return new Snapshot(now, latest, healthy, nodeIneligible, overdue, status);
  }
}
