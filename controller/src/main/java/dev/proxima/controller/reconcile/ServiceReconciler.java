package dev.proxima.controller.reconcile;

import dev.proxima.controller.conditions.ConditionMerge;
import dev.proxima.controller.conditions.TrafficDistributionConditions;
import dev.proxima.controller.conditions.WriteOutcome;
import dev.proxima.controller.conditions.ZoneSpillOverCondition;
import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.events.EventRecorder;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.HintPlan;
import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one Service's EndpointSlice hints to what the planner says: reads the cache, plans, then
 * writes only the slices whose hints change. A conflict aborts the sync so it is retried on fresh
 * state; a slice that vanished is skipped, since there is nothing left to hint.
 */
public final class ServiceReconciler {
  private static final Logger log = LoggerFactory.getLogger(ServiceReconciler.class);

  private final ClusterView cluster;
  private final SliceWriter writer;
  private final ServiceStatusWriter statusWriter;
  private final EventRecorder events;
  private final ControllerMetrics metrics;
  private final OverwriteGuard overwriteGuard;
  private final HintPlanner planner;
  private final Clock clock;
  private final AtomicLong slicesWritten = new AtomicLong();
  // The conditions last written per Service and the resourceVersion they were written over: while
  // the cache still shows that version, the write has not come back through the watch yet, and
  // writing the same conditions again would only earn a conflict.
  private final java.util.concurrent.ConcurrentMap<ObjectKey, WrittenConditions> conditionsWritten =
      new java.util.concurrent.ConcurrentHashMap<>();

  private record WrittenConditions(
      String overResourceVersion, List<io.fabric8.kubernetes.api.model.Condition> conditions) {}

  public ServiceReconciler(
      ClusterView cluster,
      SliceWriter writer,
      ServiceStatusWriter statusWriter,
      EventRecorder events,
      ControllerMetrics metrics,
      OverwriteGuard overwriteGuard,
      HintPlanner planner,
      Clock clock) {
    this.cluster = cluster;
    this.writer = writer;
    this.statusWriter = statusWriter;
    this.events = events;
    this.metrics = metrics;
    this.overwriteGuard = overwriteGuard;
    this.planner = planner;
    this.clock = clock;
  }

  /** EndpointSlices written since start, for the controller's per-pass log summary. */
  public long slicesWritten() {
    return slicesWritten.get();
  }

  /**
   * Reconciles the Service's hints.
   *
   * @return how long until the Service should be looked at again, when a slice is being left alone
   *     for a while; empty when nothing is pending
   * @throws SliceWriter.WriteConflictException when a slice changed under the sync
   */
  public Optional<Duration> reconcile(ObjectKey key) {
    var started = clock.instant();
    try {
      return reconcileExisting(key);
    } finally {
      metrics.reconciled(Duration.between(started, clock.instant()));
    }
  }

  private Optional<Duration> reconcileExisting(ObjectKey key) {
    var service = cluster.service(key);
    if (service.isEmpty()) {
      // Its slices are garbage-collected with it; only the bookkeeping needs to go.
      log.atDebug().addKeyValue("service", key).log("Service is gone; nothing to reconcile");
      conditionsWritten.remove(key);
      overwriteGuard.forget(key);
      metrics.serviceDeleted(key);
      return Optional.empty();
    }
    if ("ExternalName".equals(service.get().getSpec().getType())) {
      metrics.serviceDeleted(key);
      return Optional.empty();
    }

    var slices = cluster.slicesOf(key);
    // A deleted slice brings its Service back here: what the guard kept of it goes.
    overwriteGuard.retainOnly(key, slices);
    var plan = planner.plan(service.get(), slices);
    var currentByName = new HashMap<String, EndpointSlice>();
    slices.forEach(slice -> currentByName.put(slice.getMetadata().getName(), slice));
    plan.events().forEach(events::record);
    var spillOver =
        ZoneSpillOverCondition.desired(
            service.get(), plan, slices, ZoneDemand.ofRatios(planner.zoneCpuRatios().ratios()));
    spillOver.events().forEach(events::record);
    metrics.serviceTrafficDistribution(key, plan.trafficDistributionLabel());
    metrics.serviceMode(key, plan.modeLabel());
    metrics.serviceHintsDisabled(
        key, plan.shortfall().map(HintPlan.Shortfall::reason).orElse(null));
    plan.skipped()
        .forEach(
            skipped ->
                log.atDebug()
                    .addKeyValue("service", key)
                    .addKeyValue("slice", skipped.name())
                    .addKeyValue("reason", skipped.reason())
                    .log("Leaving slice alone"));

    Optional<Duration> retryAfter = Optional.empty();
    int written = 0;
    var overwritten = new ArrayList<String>();
    for (var desired : plan.updates()) {
      // The guard compares what is stored now with what Proxima wrote last, not with the plan.
      var decision = overwriteGuard.beforeWrite(currentByName.get(desired.getMetadata().getName()));
      if (decision.verdict() == OverwriteGuard.Verdict.CACHE_BEHIND) {
        // Another event (the controller's own status patch, say) brought the Service back before
        // the watch delivered this slice's last write: writing over the old version would only
        // be refused, and count as one more write of the slice.
        log.atDebug()
            .addKeyValue("service", key)
            .addKeyValue("slice", desired.getMetadata().getName())
            .log("The cache has not caught up with the last write of this slice; not writing it");
        retryAfter = earliest(retryAfter, decision.retryAfter());
        continue;
      }
      if (decision.verdict() != OverwriteGuard.Verdict.WRITE) {
        if (decision.verdict() == OverwriteGuard.Verdict.BACK_OFF_STARTED) {
          metrics.hintsOverwritten();
          events.record(
              PlannedEvent.warning(
                  key,
                  EventReasons.HINTS_OVERWRITTEN,
                  "Another writer keeps reverting the hints on EndpointSlice "
                      + desired.getMetadata().getName()
                      + "; Proxima stops writing it for "
                      + decision.retryAfter()
                      + ". Check which controller manages it (endpointslice.kubernetes.io/managed-by)"));
          log.atWarn()
              .addKeyValue("service", key)
              .addKeyValue("slice", desired.getMetadata().getName())
              .addKeyValue("backOff", decision.retryAfter())
              .log("Hints keep being overwritten; backing off from the slice");
        }
        overwritten.add(desired.getMetadata().getName());
        retryAfter = earliest(retryAfter, decision.retryAfter());
        continue;
      }
      try {
        var stored = writer.update(desired);
        overwriteGuard.written(stored, desired.getMetadata().getResourceVersion());
        metrics.sliceWritten("success");
        written++;
        slicesWritten.incrementAndGet();
        log.atDebug()
            .addKeyValue("service", key)
            .addKeyValue("slice", desired.getMetadata().getName())
            .addKeyValue("mode", plan.mode())
            .addKeyValue("trafficDistribution", plan.trafficDistribution())
            .log("Updated EndpointSlice hints");
      } catch (SliceWriter.SliceGoneException gone) {
        metrics.sliceWritten("not_found");
        log.atDebug()
            .addKeyValue("service", key)
            .addKeyValue("slice", desired.getMetadata().getName())
            .log("EndpointSlice was deleted before its hints could be written; skipping it");
      } catch (SliceWriter.WriteConflictException conflict) {
        metrics.sliceWritten("conflict");
        throw conflict;
      } catch (SliceWriter.NotLeaderException notLeader) {
        throw notLeader;
      } catch (RuntimeException failure) {
        metrics.sliceWritten("error");
        reportWriteFailure(service.get(), plan, spillOver.conditions(), failure);
        throw failure;
      }
    }
    updateConditions(
        service.get(),
        plan,
        new WriteOutcome(overwritten, Optional.empty()),
        spillOver.conditions());
    metrics.slicesChanged(plan.mode().topologyLabel(), plan.trafficDistributionLabel(), written);
    if (written > 0) {
      plan.removals().forEach(metrics::hintsRemoved);
    }
    return retryAfter;
  }

  /**
   * Writes the Service's conditions when they differ from the stored ones; a resync that finds
   * everything as it was writes nothing.
   */
  private void updateConditions(
      Service service, HintPlan plan, WriteOutcome outcome, List<Condition> spillOver) {
    var desired =
        new ArrayList<>(
            TrafficDistributionConditions.desired(service, plan, planner.scope(), outcome));
    desired.addAll(spillOver);
    var current = service.getStatus() == null ? null : service.getStatus().getConditions();
    var resourceVersion = service.getMetadata().getResourceVersion();
    var pending = conditionsWritten.get(plan.service());
    if (pending != null
        && resourceVersion != null
        && resourceVersion.equals(pending.overResourceVersion())) {
      // The cache lags behind our own write: judge against what was written.
      current = pending.conditions();
    }
    var merged = ConditionMerge.merge(current, desired, clock.instant());
    if (merged.isEmpty()) {
      return;
    }
    try {
      statusWriter.writeConditions(service, merged.get());
    } catch (SliceWriter.WriteConflictException | SliceWriter.NotLeaderException retry) {
      throw retry;
    } catch (RuntimeException failure) {
      // The hints are written; a status the controller may not patch (an older ClusterRole
      // without services/status) must not turn every sync into a failure. The next sync retries.
      log.atWarn()
          .addKeyValue("service", plan.service())
          .addKeyValue("cause", failure.getMessage())
          .log("Could not write the Service's conditions; hints are unaffected");
      return;
    }
    if (resourceVersion != null) {
      conditionsWritten.put(plan.service(), new WrittenConditions(resourceVersion, merged.get()));
    }
    metrics.conditionsWritten();
    log.atDebug()
        .addKeyValue("service", plan.service())
        .addKeyValue("conditions", ConditionMerge.ours(merged.get()).size())
        .log("Updated Service conditions");
  }

  /** Says WriteFailing on the Service before the failure propagates; best effort. */
  private void reportWriteFailure(
      Service service, HintPlan plan, List<Condition> spillOver, RuntimeException failure) {
    try {
      updateConditions(service, plan, WriteOutcome.failed(failure.getMessage()), spillOver);
    } catch (RuntimeException alsoFailing) {
      log.atDebug()
          .addKeyValue("service", plan.service())
          .addKeyValue("cause", alsoFailing.getMessage())
          .log("Could not report the failing write in the Service's conditions either");
    }
  }

  private static Optional<Duration> earliest(Optional<Duration> current, Duration candidate) {
    return current.isEmpty() || candidate.compareTo(current.get()) < 0
        ? Optional.of(candidate)
        : current;
  }
}
