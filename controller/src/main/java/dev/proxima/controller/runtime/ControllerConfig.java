package dev.proxima.controller.runtime;

import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.reconcile.OverwriteGuard;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything the live controller is tuned by, as one immutable value the CLI builds and tests
 * construct directly.
 */
public record ControllerConfig(
    int workers,
    Duration resyncPeriod,
    int maxRetries,
    LeaderElectionConfig leaderElection,
    OverwriteGuard.Policy overwritePolicy,
    SliceScope.Slices slices) {

  /** Writes every slice ({@code --slices=all}), as the controller did before the flag existed. */
  public ControllerConfig(
      int workers,
      Duration resyncPeriod,
      int maxRetries,
      LeaderElectionConfig leaderElection,
      OverwriteGuard.Policy overwritePolicy) {
    this(workers, resyncPeriod, maxRetries, leaderElection, overwritePolicy, SliceScope.Slices.ALL);
  }

  /**
   * Lease-based leader election; {@code enabled=false} makes this replica write unconditionally.
   */
  public record LeaderElectionConfig(
      boolean enabled,
      String namespace,
      String leaseName,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod) {
    public static LeaderElectionConfig disabled() {
      return disabledIn("");
    }

    /**
     * Disabled, in the controller's namespace: the zone-demand ConfigMap is written there, beside
     * where the Lease would be; an empty namespace publishes no demand.
     */
    public static LeaderElectionConfig disabledIn(String namespace) {
      return new LeaderElectionConfig(
          false,
          namespace,
          "",
          "",
          Duration.ofSeconds(15),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2));
    }
  }

  public ControllerConfig {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    Objects.requireNonNull(resyncPeriod, "resyncPeriod");
    if (resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("resync period must not be negative: " + resyncPeriod);
    }
    Objects.requireNonNull(leaderElection, "leaderElection");
    Objects.requireNonNull(overwritePolicy, "overwritePolicy");
    Objects.requireNonNull(slices, "slices");
  }

  /** Upstream's defaults: 5 workers, 15 retries; no leader election. */
  public static ControllerConfig defaults() {
    return new ControllerConfig(
        5,
        Duration.ofMinutes(30),
        15,
        LeaderElectionConfig.disabled(),
        OverwriteGuard.Policy.DEFAULT);
  }

  public ControllerConfig withLeaderElection(LeaderElectionConfig leaderElection) {
    return new ControllerConfig(
        workers, resyncPeriod, maxRetries, leaderElection, overwritePolicy, slices);
  }

  public ControllerConfig withSlices(SliceScope.Slices slices) {
    return new ControllerConfig(
        workers, resyncPeriod, maxRetries, leaderElection, overwritePolicy, slices);
  }

  public ControllerConfig withOverwritePolicy(OverwriteGuard.Policy policy) {
    return new ControllerConfig(workers, resyncPeriod, maxRetries, leaderElection, policy, slices);
  }
}
