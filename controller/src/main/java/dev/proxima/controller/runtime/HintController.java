package dev.proxima.controller.runtime;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.cli.DaemonThreads;
import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.controller.hints.auto.AutoHintCache;
import dev.proxima.controller.kube.ControllerInformers;
import dev.proxima.controller.kube.KubeEventRecorder;
import dev.proxima.controller.kube.KubeServiceStatusWriter;
import dev.proxima.controller.kube.KubeSliceWriter;
import dev.proxima.controller.kube.KubeZoneDemandWriter;
import dev.proxima.controller.kube.ServerVersions;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.queue.RateLimitedWorkQueue;
import dev.proxima.controller.queue.RateLimiter;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.reconcile.ServiceReconciler;
import dev.proxima.controller.reconcile.SliceWriter;
import dev.proxima.controller.reconcile.ZoneDemandPublisher;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.TopologyMode;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.ZoneSpillOverSetting;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live hint controller: informers feed Service keys into a de-duplicating, rate-limited queue;
 * workers reconcile them once the informers have synced and, with leader election, only while this
 * replica holds the Lease.
 */
public final class HintController implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HintController.class);
  private static final String COMPONENT = "proxima-controller";

  private final ControllerConfig config;
  private final ControllerMetrics metrics;
  private final ControllerInformers informers;
  private final RateLimitedWorkQueue<ObjectKey> queue;
  private final KubeEventRecorder events;
  private final ServiceReconciler reconciler;
  private final LeaderElection election;
  private final Runnable onLostLeadership;
  private final AtomicBoolean working = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<Thread> workers = new ArrayList<>();
  private final AutoHintCache autoHints = new AutoHintCache();
  // Node events recompute zone ratios here, off the informer thread; bursts collapse into one run.
  private final ExecutorService topologyWorker =
      Executors.newSingleThreadExecutor(DaemonThreads.named("topology-worker"));
  private final AtomicBoolean topologyPending = new AtomicBoolean();
  private final PassSummary passes;
  // The zone-demand ConfigMap goes through the queue under a key no Service can have (names hold
  // no slash), so its writes are de-duplicated and retried like the Services'; null when there is
  // no namespace to publish it in.
  private final ObjectKey demandKey;
  private final ZoneDemandPublisher demandPublisher;
  // Writes the pass summaries that waited for their interval.
  private final ScheduledExecutorService summaryFlush =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("log-summary"));

  /**
   * @param onLostLeadership runs after this replica lost the Lease and its workers stopped; the
   *     command exits so Kubernetes restarts it as a fresh candidate
   */
  public HintController(
      KubernetesClient client,
      ControllerConfig config,
      ControllerMetrics metrics,
      Clock clock,
      Runnable onLostLeadership) {
    this.config = config;
    this.metrics = metrics;
    this.onLostLeadership = onLostLeadership;
    this.passes = new PassSummary(clock);
    this.queue =
        new RateLimitedWorkQueue<>(
            RateLimiter.<ObjectKey>defaultControllerRateLimiter(clock), clock, metrics.workQueue());
    this.informers =
        new ControllerInformers(client, config.resyncPeriod(), queue::add, this::nodesChanged);
    var identity = config.leaderElection().identity();
    this.events = new KubeEventRecorder(client, informers, clock, COMPONENT, identity);
    this.election =
        config.leaderElection().enabled()
            ? new LeaderElection(
                client, config.leaderElection(), this::startWorking, this::lostLeadership)
            : null;
    SliceWriter writer = new KubeSliceWriter(client, this::mayWrite);
    var namespace = config.leaderElection().namespace();
    this.demandKey =
        namespace.isBlank()
            ? null
            : new ObjectKey(namespace, "configmap/" + ZoneDemand.CONFIG_MAP_NAME);
    this.demandPublisher =
        new ZoneDemandPublisher(new KubeZoneDemandWriter(client, namespace, this::mayWrite));
    this.reconciler =
        new ServiceReconciler(
            informers,
            writer,
            new KubeServiceStatusWriter(client, this::mayWrite),
            events,
            metrics,
            new OverwriteGuard(config.overwritePolicy(), clock),
            new HintPlanner(autoHints, ServerVersions.scope(client, config.slices())),
            clock);
  }

  /**
   * Starts the informers, waits until they have synced, then starts the workers directly or
   * campaigns for the Lease.
   *
   * @throws TimeoutException when the informers do not sync within {@code syncTimeout}
   */
  public void start(Duration syncTimeout) throws TimeoutException, InterruptedException {
    start(syncTimeout, new CompletableFuture<Void>());
  }

  /**
   * Like {@link #start(Duration)}, but a stop request ends the wait: a kubelet's SIGTERM must not
   * sit out the sync timeout while the API server is unreachable.
   *
   * @return false when {@code stopRequested} completed before the informers synced; nothing was
   *     started then
   */
  public boolean start(Duration syncTimeout, CompletableFuture<?> stopRequested)
      throws TimeoutException, InterruptedException {
    var synced = informers.start();
    try {
      CompletableFuture.anyOf(synced, stopRequested)
          .get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException failure) {
      throw new IllegalStateException("informers failed to start", failure.getCause());
    }
    if (!synced.isDone()) {
      return false;
    }
    log.atInfo().log("Informers synced");
    long flushMillis = PassSummary.INTERVAL.toMillis() / 4;
    summaryFlush.scheduleWithFixedDelay(
        passes::flushIfDue, flushMillis, flushMillis, TimeUnit.MILLISECONDS);
    recomputeZones();
    if (election == null) {
      startWorking();
    } else {
      election.start();
    }
    return true;
  }

  /** Ready means the caches are complete; a standby replica is ready too, to take over fast. */
  public boolean isReady() {
    return informers.hasSynced() && !closed.get();
  }

  public boolean isLeader() {
    return election == null || election.isLeader();
  }

  private boolean mayWrite() {
    return !closed.get() && isLeader();
  }

  private synchronized void startWorking() {
    if (closed.get() || !working.compareAndSet(false, true)) {
      return;
    }
    metrics.leading(true);
    // Leadership may arrive long after the informers delivered their events: look at everything.
    informers.serviceKeys().forEach(queue::add);
    if (demandKey != null) {
      queue.add(demandKey);
    }
    for (int i = 0; i < config.workers(); i++) {
      var worker = new Thread(this::work, "hint-worker-" + i);
      worker.setDaemon(true);
      worker.start();
      workers.add(worker);
    }
    log.atInfo().addKeyValue("workers", config.workers()).log("Started workers");
  }

  private void nodesChanged() {
    if (topologyPending.compareAndSet(false, true) && !closed.get()) {
      topologyWorker.execute(
          () -> {
            topologyPending.set(false);
            var requeued = recomputeZones();
            requeued.forEach(queue::add);
          });
    }
  }

  /**
   * Recomputes the zone ratios from the Node cache and returns the Auto Services to look at again:
   * those now overloaded, as upstream re-queues, and also every Auto Service without hints, which
   * upstream forgets (issue 123401) so a late zone label brings their hints back only by chance.
   * The zone demand, and the Services whose spill-over condition shows it, are looked at again too.
   */
  private List<ObjectKey> recomputeZones() {
    if (!informers.hasSynced()) {
      return List.of();
    }
    var ratios = autoHints.setNodes(informers.nodes());
    var keys = new java.util.TreeSet<>(autoHints.overloadedServices());
    for (var key : informers.serviceKeys()) {
      var service = informers.service(key);
      if (service.isEmpty()) {
        continue;
      }
      var annotations = service.get().getMetadata().getAnnotations();
      if ((TopologyMode.autoEnabled(annotations) && !autoHints.hasPopulatedHints(key))
          || ZoneSpillOverSetting.parse(annotations).state() == ZoneSpillOverSetting.State.ON) {
        keys.add(key);
      }
    }
    if (demandKey != null) {
      keys.add(demandKey);
    }
    log.atInfo()
        .addKeyValue("sufficient", ratios.sufficientNodeInfo())
        .addKeyValue("zones", ratios.ratios())
        .addKeyValue("requeued", keys.size())
        .log("Recomputed zone CPU ratios");
    return List.copyOf(keys);
  }

  private void lostLeadership() {
    metrics.leading(false);
    stopWorking();
    if (!closed.get()) {
      onLostLeadership.run();
    }
  }

  private void work() {
    try {
      ObjectKey key;
      while ((key = queue.take()) != null) {
        passes.started(reconciler.slicesWritten());
        String result = "dropped";
        try {
          result = key.equals(demandKey) ? publishDemand(key) : process(key);
        } finally {
          queue.done(key);
          passes.finished(result, queue.isIdle(), reconciler.slicesWritten());
        }
      }
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Reconciles one Service; returns the result as the sync metric counts it. */
  private String process(ObjectKey key) {
    try {
      var retryAfter = reconciler.reconcile(key);
      queue.forget(key);
      metrics.syncFinished("success");
      retryAfter.ifPresent(delay -> queue.addAfter(key, delay));
      return "success";
    } catch (SliceWriter.NotLeaderException notLeader) {
      // The replica that holds the Lease now reconciles everything on taking over.
      log.atDebug().addKeyValue("service", key).log("Dropped: not the leader");
      return "dropped";
    } catch (SliceWriter.WriteConflictException conflict) {
      metrics.syncFinished("stale");
      log.atDebug()
          .addKeyValue("service", key)
          .addKeyValue("cause", conflict.getMessage())
          .log("Conflict; retrying with fresh state");
      retry(key, conflict);
      return "stale";
    } catch (RuntimeException failure) {
      metrics.syncFinished("error");
      if (failure instanceof KubernetesClientException) {
        // The API server's answer (or its absence) says it all; the stack trace only repeats.
        log.atWarn()
            .addKeyValue("service", key)
            .addKeyValue("cause", ApiServerFailures.cause(failure))
            .log("Sync failed");
        log.atDebug().setCause(failure).addKeyValue("service", key).log("Sync failed");
      } else {
        log.atWarn().setCause(failure).addKeyValue("service", key).log("Sync failed");
      }
      events.record(
          PlannedEvent.warning(
              key,
              EventReasons.FAILED_TO_UPDATE_ENDPOINT_SLICES,
              "Error updating Endpoint Slices for Service " + key + ": " + failure.getMessage()));
      retry(key, failure);
      return "error";
    }
  }

  /** Writes the zone demand when its published shares changed; failures retry with backoff. */
  private String publishDemand(ObjectKey key) {
    var demand = ZoneDemand.ofRatios(autoHints.ratios().ratios());
    try {
      if (demandPublisher.publish(demand)) {
        log.atInfo()
            .addKeyValue("configMap", key.namespace() + "/" + ZoneDemand.CONFIG_MAP_NAME)
            .addKeyValue("demand", demand.data())
            .log("Published the zones' demand");
      }
      queue.forget(key);
      return "success";
    } catch (SliceWriter.NotLeaderException notLeader) {
      return "dropped";
    } catch (RuntimeException failure) {
      log.atWarn()
          .addKeyValue("configMap", key.namespace() + "/" + ZoneDemand.CONFIG_MAP_NAME)
          .addKeyValue("cause", ApiServerFailures.cause(failure))
          .log("Could not publish the zones' demand; retrying");
      // No retry limit: the proxies need the object, and the key costs nothing while it waits.
      queue.addRateLimited(key);
      return failure instanceof SliceWriter.WriteConflictException ? "stale" : "error";
    }
  }

  private void retry(ObjectKey key, RuntimeException cause) {
    if (queue.numRequeues(key) < config.maxRetries()) {
      queue.addRateLimited(key);
      return;
    }
    queue.forget(key);
    log.atError()
        .addKeyValue("service", key)
        .addKeyValue("retries", config.maxRetries())
        .log("Giving up on Service until its next change");
    events.record(
        PlannedEvent.warning(
            key,
            EventReasons.SYNC_RETRIES_EXHAUSTED,
            "Gave up after "
                + config.maxRetries()
                + " retries; hints are retried on the next change or resync. Last error: "
                + cause.getMessage()));
  }

  private void stopWorking() {
    List<Thread> running;
    synchronized (this) {
      if (!working.compareAndSet(true, false)) {
        return;
      }
      running = new ArrayList<>(workers);
      workers.clear();
    }
    queue.shutDown();
    for (var worker : running) {
      try {
        worker.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Stops taking work, lets in-flight writes finish, releases the Lease, stops the informers. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    queue.shutDown();
    topologyWorker.shutdownNow();
    summaryFlush.shutdownNow();
    stopWorking();
    if (election != null) {
      election.close();
    }
    metrics.leading(false);
    events.close();
    informers.close();
    log.atInfo().log("Controller stopped");
  }
}
