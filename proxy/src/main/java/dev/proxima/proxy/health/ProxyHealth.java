package dev.proxima.proxy.health;

import dev.proxima.proxy.model.IpFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * The proxy's health. /healthz is kube-proxy's answer: unhealthy when an update was queued for a
 * family and not applied within the health timeout (2 × sync period), when the first sync is
 * overdue, or when the Node is not eligible (it is missing, being deleted or has the {@code
 * ToBeDeletedByClusterAutoscaler} taint). Nothing queued is healthy, also at startup.
 *
 * <p>/livez is narrower, so that the kubelet restarts the proxy only when a restart can help: it
 * fails only while the sync loop has stopped passing, that is, changes are queued and no sync pass
 * (successful, failed, or one that found the informers not synced) has ended within the health
 * timeout since the loop started. Configuration, an unreachable API server, a missing Node or a
 * kernel that refuses the rules make a pass end and never fail it.
 */
public final class ProxyHealth {
  private final Clock clock;
  private final Duration healthTimeout;
  private final Map<IpFamily, Instant> lastUpdated = new EnumMap<>(IpFamily.class);
  private final Map<IpFamily, Instant> oldestPendingQueued = new EnumMap<>(IpFamily.class);
  private String nodeIneligible;
  private Instant firstSyncPendingSince;
  private final Map<IpFamily, String> localDetection = new EnumMap<>(IpFamily.class);

  /** Null before the loop starts, and /livez passes until then. */
  private Instant loopStarted;

  private Instant lastPassEnded;

  public ProxyHealth(Clock clock, Duration healthTimeout) {
    this.clock = clock;
    this.healthTimeout = healthTimeout;
  }

  /** The first pending change starts the clock. */
  public synchronized void queued(IpFamily family) {
    oldestPendingQueued.putIfAbsent(family, clock.instant());
  }

  public synchronized void updated(IpFamily family) {
    oldestPendingQueued.remove(family);
    lastUpdated.put(family, clock.instant());
    firstSyncPendingSince = null;
  }

  public synchronized void awaitingFirstSync() {
    if (lastUpdated.isEmpty()) {
      firstSyncPendingSince = clock.instant();
    }
  }

  /** From here a loop that stops passing fails /livez. */
  public synchronized void syncLoopStarted() {
    loopStarted = clock.instant();
  }

  /** Whatever the pass did: the loop is alive. */
  public synchronized void passEnded() {
    lastPassEnded = clock.instant();
  }

  /** What the family's local-traffic detection lacks and uses instead; null for the configured. */
  public synchronized void localDetection(IpFamily family, String degraded) {
    if (degraded == null) {
      localDetection.remove(family);
    } else {
      localDetection.put(family, degraded);
    }
  }

  public synchronized String localDetectionWarning(IpFamily family) {
    return localDetection.get(family);
  }

  /** Why load balancers should stop sending traffic to this node, or null when it is eligible. */
  public synchronized void nodeIneligible(String why) {
    nodeIneligible = why;
  }

  /** A consistent view for one response; the first sync is overdue typically for want of API. */
  public record Snapshot(
      Instant currentTime,
      Instant lastUpdated,
      boolean healthy,
      String nodeIneligible,
      boolean firstSyncOverdue,
      Map<IpFamily, FamilyStatus> status,
      boolean syncLoopStuck,
      Map<IpFamily, String> warnings) {
    public Snapshot {
      warnings = warnings.isEmpty() ? Map.of() : new EnumMap<>(warnings);
    }

    public boolean nodeEligible() {
      return nodeIneligible == null;
    }
  }

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
    boolean stuck = false;
    if (loopStarted != null && !oldestPendingQueued.isEmpty()) {
      var lastSign = lastPassEnded == null ? loopStarted : lastPassEnded;
      var oldest = oldestPendingQueued.values().stream().min(Instant::compareTo).orElseThrow();
      stuck =
          now.isAfter(lastSign.plus(healthTimeout))
              && now.isAfter(
                  (oldest.isAfter(loopStarted) ? oldest : loopStarted).plus(healthTimeout));
    }
    return new Snapshot(
        now, latest, healthy, nodeIneligible, overdue, status, stuck, localDetection);
  }
}
