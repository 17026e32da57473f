package dev.proxima.controller.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Campaigns for a coordination.k8s.io Lease with fabric8's LeaderElector. The {@link #isLeader()}
 * flag drops the moment leadership is lost, before any callback runs, because every write checks
 * it: a replica that lost the Lease must not write even once more.
 */
final class LeaderElection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  private final KubernetesClient client;
  private final ControllerConfig.LeaderElectionConfig config;
  private final Runnable onStartedLeading;
  private final Runnable onStoppedLeading;
  private final AtomicBoolean leading = new AtomicBoolean();
  private LeaderElector elector;
  private CompletableFuture<?> campaign;

  LeaderElection(
      KubernetesClient client,
      ControllerConfig.LeaderElectionConfig config,
      Runnable onStartedLeading,
      Runnable onStoppedLeading) {
    this.client = client;
    this.config = config;
    this.onStartedLeading = onStartedLeading;
    this.onStoppedLeading = onStoppedLeading;
  }

  synchronized void start() {
    var electionConfig =
        new LeaderElectionConfigBuilder()
            .withName(config.leaseName())
            .withLeaseDuration(config.leaseDuration())
            .withRenewDeadline(config.renewDeadline())
            .withRetryPeriod(config.retryPeriod())
            .withLock(new LeaseLock(config.namespace(), config.leaseName(), config.identity()))
            .withReleaseOnCancel()
            .withLeaderCallbacks(
                new LeaderCallbacks(this::startedLeading, this::stoppedLeading, this::newLeader))
            .build();
    elector = client.leaderElector().withConfig(electionConfig).build();
    campaign = elector.start();
    log.atInfo()
        .addKeyValue("lease", config.namespace() + "/" + config.leaseName())
        .addKeyValue("identity", config.identity())
        .log("Campaigning for leadership");
  }

  boolean isLeader() {
    return leading.get();
  }

  private void startedLeading() {
    leading.set(true);
    log.atInfo().addKeyValue("identity", config.identity()).log("Became the leader");
    onStartedLeading.run();
  }

  private void stoppedLeading() {
    if (leading.getAndSet(false)) {
      log.atWarn()
          .addKeyValue("identity", config.identity())
          .log("Lost leadership; writes stopped");
      onStoppedLeading.run();
    }
  }

  private void newLeader(String identity) {
    log.atInfo().addKeyValue("leader", identity).log("Leader observed");
  }

  /** Steps down and releases the Lease so a standby replica takes over without waiting. */
  @Override
  public synchronized void close() {
    leading.set(false);
    if (campaign == null) {
      return;
    }
    campaign.cancel(true);
    // Cancelling triggers the elector's own release on another thread, which races with the JVM
    // exiting after SIGTERM; releasing here too makes the hand-over to the standby certain.
    try {
      elector.release();
    } catch (RuntimeException failure) {
      log.atWarn()
          .setCause(failure)
          .log("Could not release the Lease; the standby waits for it to expire");
    }
  }
}
