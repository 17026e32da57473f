package dev.proxima.proxy.sync;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Decides whether one family's next sync is full (re-plans every Service) or partial (the changed
 * ones), and why, from what the caller reports happened and what the rules are built for now.
 */
public final class SyncPolicy {
  /** Labels are one token, for logs. */
  public enum Reason {
    NONE("partial"),
    FIRST_SYNC("first-sync"),
    AFTER_FAILURE("after-failure"),
    RULES_CHANGED_ELSEWHERE("rules-changed-elsewhere"),
    REQUESTED("requested"),
    NODE_CHANGED("node-changed"),
    NODE_PORT_ADDRESSES_CHANGED("nodeport-addresses-changed"),
    LOCAL_CIDRS_CHANGED("local-cidrs-changed"),
    ADDRESS_POLICY_CHANGED("address-policy-changed"),
    PERIOD("full-sync-period"),
    NOT_A_DELTA("not-a-delta");

    private final String label;

    Reason(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public record Decision(boolean full, Reason reason) {
    public static final Decision PARTIAL = new Decision(false, Reason.NONE);

    /** The partial sync turned full because the data plane could not express it as a delta. */
    public static final Decision ESCALATED = new Decision(true, Reason.NOT_A_DELTA);

    static Decision full(Reason reason) {
      return new Decision(true, reason);
    }
  }

  /**
   * What a family's rules are built for besides the Services, compared by {@code equals}: any
   * change re-plans all, since only a full sync re-judges every Service against a new address
   * policy.
   */
  public record Basis(
      Object node, List<String> nodePortAddresses, List<String> localCidrs, Object addressPolicy) {
    public Basis {
      nodePortAddresses = List.copyOf(nodePortAddresses);
      localCidrs = List.copyOf(localCidrs);
    }
  }

  private final Duration fullSyncPeriod;
  private final Clock clock;

  /** Null when nothing forces the next sync to be full. */
  private Reason forced = Reason.FIRST_SYNC;

  private Instant lastFull;
  private Basis loadedFor;

  public SyncPolicy(Duration fullSyncPeriod, Clock clock) {
    this.fullSyncPeriod = Objects.requireNonNull(fullSyncPeriod);
    this.clock = clock;
  }

  public Decision decide(Basis basis) {
    if (forced != null) {
      return Decision.full(forced);
    }
    if (!Objects.equals(basis.node(), loadedFor.node())) {
      return Decision.full(Reason.NODE_CHANGED);
    }
    if (!basis.nodePortAddresses().equals(loadedFor.nodePortAddresses())) {
      return Decision.full(Reason.NODE_PORT_ADDRESSES_CHANGED);
    }
    if (!basis.localCidrs().equals(loadedFor.localCidrs())) {
      return Decision.full(Reason.LOCAL_CIDRS_CHANGED);
    }
    if (!Objects.equals(basis.addressPolicy(), loadedFor.addressPolicy())) {
      return Decision.full(Reason.ADDRESS_POLICY_CHANGED);
    }
    if (!clock.instant().isBefore(lastFull.plus(fullSyncPeriod))) {
      return Decision.full(Reason.PERIOD);
    }
    return Decision.PARTIAL;
  }

  /** True while the next sync must be full whatever the basis: the kernel may differ from plan. */
  public boolean fullSyncForced() {
    return forced != null;
  }

  public boolean loadedOnce() {
    return loadedFor != null;
  }

  /** A load failed: the kernel may not hold what was planned, so the next sync is full. */
  public void failed() {
    forced = Reason.AFTER_FAILURE;
  }

  public void rulesChangedElsewhere() {
    if (forced == null) {
      forced = Reason.RULES_CHANGED_ELSEWHERE;
    }
  }

  public void requested() {
    if (forced == null) {
      forced = Reason.REQUESTED;
    }
  }

  public void fullLoaded(Basis basis) {
    forced = null;
    lastFull = clock.instant();
    loadedFor = basis;
  }
}
