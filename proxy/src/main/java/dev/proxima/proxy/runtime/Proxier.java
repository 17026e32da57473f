package dev.proxima.proxy.runtime;

import dev.proxima.proxy.conntrack.ConntrackCleaner;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.TopologyFallback;
import dev.proxima.proxy.render.nft.NftScriptDiff;
import dev.proxima.proxy.selection.TopologyLevel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Programs one IP family: plans the node's Service ports from the cache, renders the ruleset and
 * loads it in one nft transaction. A failed transaction leaves the previous ruleset in place (nft
 * is atomic), is counted, and makes the next attempt a full sync.
 */
public final class Proxier {
  private static final Logger log = LoggerFactory.getLogger(Proxier.class);

  private final IpFamily family;
  private final ProxyConfig config;
  private final ProxyCache cache;
  private final RuleLoader nft;
  private final ConntrackCleaner conntrack;
  private final Consumer<String> dryRunOutput;
  private final ProxyMetrics metrics;
  private final ProxyHealth health;
  private final Clock clock;
  private String lastApplied;
  private NftScriptDiff.Parsed lastAppliedParsed;
  private boolean needFullSync = true;
  private NodePlanner.FamilyPlan lastPlan;
  private Instant lastFullSync = Instant.MIN;

  /**
   * @param nft null in dry-run mode, where rendered rulesets go to {@code dryRunOutput} instead
   */
  public Proxier(
      IpFamily family,
      ProxyConfig config,
      ProxyCache cache,
      RuleLoader nft,
      ConntrackCleaner conntrack,
      Consumer<String> dryRunOutput,
      ProxyMetrics metrics,
      ProxyHealth health,
      Clock clock) {
    this.family = family;
    this.config = config;
    this.cache = cache;
    this.nft = nft;
    this.conntrack = conntrack;
    this.dryRunOutput = dryRunOutput;
    this.metrics = metrics;
    this.health = health;
    this.clock = clock;
  }

  public IpFamily family() {
    return family;
  }

  /** The plan of the latest sync, or null before the first. */
  public synchronized NodePlanner.FamilyPlan lastPlan() {
    return lastPlan;
  }

  /** Forces the next sync to reload everything, e.g. after another tool touched the table. */
  public synchronized void requireFullSync() {
    needFullSync = true;
  }

  /**
   * One sync.
   *
   * @return false when the ruleset could not be loaded and the sync must be retried
   */
  public synchronized boolean sync() {
    if (!cache.hasSynced()) {
      // Until every informer has listed, the kernel keeps whatever rules it has.
      return true;
    }
    var started = clock.instant();
    var triggers = cache.drainTriggerTimes(family);
    boolean full = needFullSync || !started.isBefore(lastFullSync.plus(config.fullSyncPeriod()));
    var plan =
        NodePlanner.plan(
            family,
            config.nodeName(),
            cache.node(),
            config.serviceProxyName(),
            cache.services(),
            cache.endpointSlices());
    lastPlan = plan;
    var rendering = NftPlanRenderer.render(plan, config.rules(), cache.nodeAddresses());
    plan.warnings()
        .forEach(warning -> log.atWarn().addKeyValue("family", family.apiName()).log(warning));
    rendering
        .warnings()
        .forEach(warning -> log.atWarn().addKeyValue("family", family.apiName()).log(warning));
    var script = rendering.script();
    if (full || !script.equals(lastApplied)) {
      var parsed = NftScriptDiff.Parsed.of(script);
      // A partial sync loads only what changed; a full one replaces the table.
      var delta =
          full || lastAppliedParsed == null
              ? Optional.<String>empty()
              : NftScriptDiff.delta(lastAppliedParsed, parsed);
      full = delta.isEmpty();
      var transaction = delta.orElse(script);
      if (nft == null) {
        dryRunOutput.accept(transaction);
      } else {
        var result = nft.apply(transaction);
        if (!result.succeeded()) {
          metrics.nftablesFailed(family);
          needFullSync = true;
          log.atError()
              .addKeyValue("family", family.apiName())
              .addKeyValue("error", result.summary())
              .log(
                  "nft transaction failed; the previous rules stay in place and the next sync is full");
          return false;
        }
      }
      lastApplied = script;
      lastAppliedParsed = parsed;
      cleanUpUdpFlows(plan);
    }
    var finished = clock.instant();
    if (full) {
      needFullSync = false;
      lastFullSync = finished;
    }
    health.updated(family);
    metrics.synced(family, full, Duration.between(started, finished), finished);
    triggers.forEach(
        trigger -> metrics.networkProgrammed(family, Duration.between(trigger, finished)));
    reportTopology(plan);
    log.atDebug()
        .addKeyValue("family", family.apiName())
        .addKeyValue("servicePorts", plan.ports().size())
        .addKeyValue("full", full)
        .addKeyValue("elapsed", Duration.between(started, finished))
        .log("Synced proxy rules");
    return true;
  }

  /** After rules change, UDP flows to removed endpoints would outlive them: delete those. */
  private void cleanUpUdpFlows(NodePlanner.FamilyPlan plan) {
    if (conntrack == null
        || plan.ports().stream().noneMatch(p -> p.port().protocol() == Protocol.UDP)) {
      return;
    }
    var started = clock.instant();
    int deleted = conntrack.cleanup(family, plan.ports());
    metrics.conntrackReconciled(family, Duration.between(started, clock.instant()), deleted);
  }

  private void reportTopology(NodePlanner.FamilyPlan plan) {
    int noLocalInternal = 0;
    int noLocalExternal = 0;
    Map<String, Integer> byLevel = new TreeMap<>();
    Map<String, Integer> byFallback = new TreeMap<>();
    for (var level : TopologyLevel.values()) {
      byLevel.put(level.displayName(), 0);
    }
    for (var fallback : TopologyFallback.values()) {
      if (fallback != TopologyFallback.NONE) {
        byFallback.put(fallback.label(), 0);
      }
    }
    for (var planned : plan.ports()) {
      var port = planned.port();
      var selection = planned.selection();
      byLevel.merge(selection.topology().displayName(), 1, Integer::sum);
      if (planned.fallback() != TopologyFallback.NONE) {
        byFallback.merge(planned.fallback().label(), 1, Integer::sum);
      }
      boolean noLocal =
          selection.hasAnyEndpoints()
              && (selection.localEndpoints() == null || selection.localEndpoints().isEmpty());
      if (noLocal && port.internalTrafficLocal()) {
        noLocalInternal++;
      }
      if (noLocal && port.externalTrafficLocal() && port.externallyAccessible()) {
        noLocalExternal++;
      }
    }
    metrics.noLocalEndpoints(family, noLocalInternal, noLocalExternal);
    metrics.topology(family, byLevel, byFallback);
  }
}
