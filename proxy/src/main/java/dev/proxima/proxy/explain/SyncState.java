package dev.proxima.proxy.explain;

import dev.proxima.proxy.model.IpFamily;
import java.time.Instant;
import java.util.Objects;

/**
 * How one family's proxier last synced, as {@code explain --live} reports it. Each sync publishes a
 * new value; readers on other threads see one whole sync, never half of one.
 *
 * @param lastFullSync when the latest successful full sync ended, or null before the first
 * @param lastPartialSync when the latest successful partial sync ended, or null before the first
 * @param rulesLoaded lines (nft statements or iptables-restore lines) of the latest transaction
 *     loaded into the kernel; 0 before the first
 * @param failing the kernel then keeps the previous rules
 * @param lastError null when no sync has failed since start
 * @param waitingFor what the proxier waits for before it programs anything, or, after its first
 *     sync kept the rules a restart found, before it has a plan; null otherwise
 * @param localTraffic how the rules detect traffic from this node's pods, and what the configured
 *     mode lacks when they use a fallback; null before the first sync
 */
public record SyncState(
    IpFamily family,
    Instant lastFullSync,
    Instant lastPartialSync,
    int rulesLoaded,
    int servicePorts,
    boolean failing,
    SyncError lastError,
    String waitingFor,
    String localTraffic) {
  public record SyncError(String message, Instant at) {
    public SyncError {
      Objects.requireNonNull(at, "at");
      message = message == null || message.isBlank() ? "(no message)" : message.strip();
    }
  }

  public SyncState {
    Objects.requireNonNull(family, "family");
  }

  public SyncState withLocalTraffic(String value) {
    return new SyncState(
        family,
        lastFullSync,
        lastPartialSync,
        rulesLoaded,
        servicePorts,
        failing,
        lastError,
        waitingFor,
        value);
  }

  public static SyncState notSynced(IpFamily family) {
    return new SyncState(family, null, null, 0, 0, false, null, null, null);
  }

  /** After a successful sync that ended at {@code at}. */
  public SyncState succeeded(boolean full, Instant at, int loadedLines, int ports) {
    return new SyncState(
        family,
        full ? at : lastFullSync,
        full ? lastPartialSync : at,
        loadedLines,
        ports,
        false,
        lastError,
        null,
        localTraffic);
  }

  /** After a sync whose rules the kernel refused; what was loaded before stays. */
  public SyncState failed(String error, Instant at) {
    return new SyncState(
        family,
        lastFullSync,
        lastPartialSync,
        rulesLoaded,
        servicePorts,
        true,
        new SyncError(error, at),
        null,
        localTraffic);
  }

  /** While the proxier programs nothing until {@code what} arrives. */
  public SyncState waiting(String what) {
    return new SyncState(
        family,
        lastFullSync,
        lastPartialSync,
        rulesLoaded,
        servicePorts,
        failing,
        lastError,
        what,
        localTraffic);
  }
}
