package dev.proxima.proxy.runtime;

import dev.proxima.cli.RateLimitedSummary;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.dataplane.DataPlane;
import dev.proxima.proxy.explain.SyncState;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.AddressOwners;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.LocalDetection;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodeIps;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.ObservedPortCap;
import dev.proxima.proxy.plan.PlanStore;
import dev.proxima.proxy.plan.PlanWarnings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.sync.SyncPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Programs one IP family: a full sync plans every Service and replaces its rules, a partial sync
 * re-plans the changed Services and loads only the difference. A failed load leaves the previous
 * rules in place and makes the next sync full.
 */
public final class Proxier {
  private static final Logger log = LoggerFactory.getLogger(Proxier.class);

  /** Partial syncs are summed into one INFO line at most this often. */
  public static final Duration PARTIAL_SYNC_SUMMARY_INTERVAL = Duration.ofMinutes(1);

  private final IpFamily family;
  private final ProxyConfig config;
  private final ProxyCache cache;
  private final DataPlane plane;
  private final Host host;
  private final ProxyMetrics metrics;
  private final Clock clock;

  private final PlanStore store;

  /** Which ports are counted per locality, under --observe-locality-max-series. */
  private final ObservedPortCap observed;

  /** Whether the cap left ports out at the latest sync, so its WARN is logged once per episode. */
  private boolean capBiting;

  /** The plan's warnings as last told: each object and reason logged once, when it changes. */
  private final PlanWarnings warnings = new PlanWarnings();

  /** The collisions as last logged: each one is logged once, when it appears. */
  private Set<String> reportedCollisions = Set.of();

  /** Whether NodePorts were served nowhere at the last sync; null before the first. */
  private Boolean servedNowhere;

  /** How the rules detected local traffic at the last sync; null before the first. */
  private String reportedDetection;

  private final SyncPolicy policy;
  private final ProxyHealth health;
  private boolean loggedFirstSync;

  private final RateLimitedSummary partialSyncs;

  /** What {@code explain --live} reads: the latest loaded plan (or null) and how syncs went. */
  public record Published(NodePlanner.FamilyPlan plan, SyncState state) {}

  // Replaced whole on the sync thread, so a reader sees one sync's plan and state together.
  private volatile Published published;

  /** The UDP ports of the latest successful sync's plan, for the conntrack cleanup. */
  private List<NodePlanner.PlannedPort> previousUdp = List.of();

  private final List<Consumer<SyncResult>> observers = new CopyOnWriteArrayList<>();

  public Proxier(
      IpFamily family,
      ProxyConfig config,
      ProxyCache cache,
      DataPlane plane,
      Host host,
      ProxyMetrics metrics,
      ProxyHealth health,
      Clock clock,
      PlanStore store) {
    this.host = host;
    this.family = family;
    this.config = config;
    this.cache = cache;
    this.plane = plane;
    this.metrics = metrics;
    this.clock = clock;
    this.policy = new SyncPolicy(config.fullSyncPeriod(), clock);
    this.store = store;
    this.health = health;
    this.observed =
        new ObservedPortCap(
            plane.countsPerServicePort() ? config.rules().observeLocality() : ObserveLocality.OFF,
            config.rules().observeMaxSeries());
    this.published = new Published(null, SyncState.notSynced(family));
    this.partialSyncs =
        new RateLimitedSummary(
            log,
            "Partial syncs",
            Map.of("family", family.apiName()),
            "syncs",
            PARTIAL_SYNC_SUMMARY_INTERVAL,
            clock);
  }

  public void flushLogSummary() {
    partialSyncs.flushIfDue();
  }

  public IpFamily family() {
    return family;
  }

  /** The plan of the latest sync, or null before the first. */
  public synchronized NodePlanner.FamilyPlan lastPlan() {
    return policy.loadedOnce() ? currentPlan() : null;
  }

  /** The latest loaded plan and sync state, without waiting for a sync in progress. */
  public Published published() {
    return published;
  }

  /** Told after each sync, on the sync thread, after the load, in subscribe order. */
  public void subscribe(Consumer<SyncResult> observer) {
    observers.add(observer);
  }

  /**
   * What every sync tells: explain --live, health, metrics, the UDP conntrack cleanup, observers.
   */
  private void tell(SyncResult result) {
    publish(result);
    if (result.succeeded()) {
      health.updated(family);
    }
    SyncMetrics.record(metrics, result);
    deleteStaleUdpFlows(result);
    observers.forEach(observer -> observer.accept(result));
  }

  private void publish(SyncResult result) {
    var state = published.state();
    published =
        result.succeeded()
            ? new Published(
                result.plan(),
                state.succeeded(
                    result.decision().full(),
                    result.finished(),
                    result.outcome() == SyncResult.Outcome.LOADED
                        ? result.rulesLoaded()
                        : state.rulesLoaded(),
                    result.plan().ports().size()))
            : new Published(published.plan(), state.failed(result.error(), result.finished()));
  }

  /**
   * After a sync that loaded a change to a UDP Service port, deletes the conntrack entries that
   * would keep its flows on endpoints that no longer serve (a port left without endpoints too: its
   * rejecting rules meet only new flows) and every flow to a deleted UDP Service's address. A
   * restart's first sync has no previous plan, so it breaks no working UDP flow.
   */
  private void deleteStaleUdpFlows(SyncResult result) {
    if (!result.succeeded()) {
      return;
    }
    var before = previousUdp;
    previousUdp =
        result.plan().ports().stream().filter(p -> p.port().protocol() == Protocol.UDP).toList();
    if (result.outcome() != SyncResult.Outcome.LOADED || !result.touchedUdp()) {
      return;
    }
    var started = clock.instant();
    int deleted = host.deleteStaleUdpFlows(family, result.plan().ports(), before);
    metrics.conntrackReconciled(family, Duration.between(started, clock.instant()), deleted);
  }

  private NodePlanner.FamilyPlan currentPlan() {
    return store.current(NodePlanner.zoneOf(cache.node()));
  }

  /** Nothing while the next sync must be full: the kernel may not hold what the last one meant. */
  public synchronized void removeStale() {
    if (!policy.fullSyncForced()) {
      plane.removeStale();
    }
  }

  public synchronized void requireFullSync() {
    policy.requested();
  }

  /** False, and the next sync is full, when the kernel lost what Proxima relies on. */
  public synchronized boolean checkKernel() {
    if (!policy.loadedOnce() || plane.intact()) {
      return true;
    }
    log.atWarn()
        .addKeyValue("family", family.apiName())
        .log("Proxima's rules were changed by another tool; the next sync reloads all of them");
    policy.rulesChangedElsewhere();
    return false;
  }

  /** False when the rules could not be loaded and the sync must be retried. */
  public synchronized boolean sync(Set<ObjectKey> changed) {
    return sync(changed, host.addresses(cache), new OnePassObjects(cache));
  }

  /**
   * The families of a pass share the host's addresses and {@code objects}, to plan from the same.
   */
  public synchronized boolean sync(
      Set<ObjectKey> changed,
      List<String> hostAddresses,
      Supplier<OnePassObjects.Objects> objects) {
    if (!cache.hasSynced()) {
      // Until every informer has listed, the kernel keeps whatever rules it has.
      return true;
    }
    var started = clock.instant();
    var triggers = cache.drainTriggerTimes(family);
    var node = cache.node();
    var nodeAddresses =
        config.rules().nodePortAddresses(family, hostAddresses, NodeIps.primary(node));
    reportNodePortAddresses(nodeAddresses);
    var podCidrs = NodeIps.podCidrs(node);
    // NodeCIDR on a Node without spec.podCIDRs falls back (LocalDetection) rather than waiting:
    // many clusters never set them, and a node must not go without a Service proxy for it.
    var detection = LocalDetection.of(config.rules(), family, podCidrs);
    reportLocalDetection(detection);
    var localCidrs = detection.localCidrs();
    // The zone and addresses of the node shape every Service's rules: re-plan everything then.
    var basis =
        new SyncPolicy.Basis(
            nodeIdentity(node),
            nodeAddresses,
            localCidrs,
            addressPolicy(node, hostAddresses, podCidrs).inputs());
    var decision = policy.decide(basis);
    boolean full = decision.full();
    plane.serviceCidrs(cache.serviceCidrs());
    DataPlane.Outcome outcome;
    var touchedUdp = false;
    Duration planned = null;
    if (full) {
      // The pass's one listing: the families plan from the same objects.
      var pass = objects.get();
      var plan =
          NodePlanner.planClaims(
              family,
              config.nodeName(),
              node,
              config.serviceProxyName(),
              pass.services(),
              pass.slices(),
              addressPolicy(node, hostAddresses, podCidrs),
              cache.zoneDemand());
      warnings.full(plan.warnings(), this::warn);
      var all = store.replaceAll(plan.ports(), plan.nodeZone());
      planned = Duration.between(started, clock.instant());
      observed.wantAll(
          all.stream().filter(p -> observed.wants(p.port())).map(p -> p.port().name()).toList());
      outcome = plane.replaceAll(rules(all), nodeAddresses, podCidrs);
      touchedUdp = all.stream().anyMatch(p -> p.port().protocol() == Protocol.UDP);
    } else {
      var claims = new LinkedHashMap<ObjectKey, List<NodePlanner.PlannedPort>>();
      var changedWarnings = new ArrayList<String>();
      var addresses =
          addressPolicy(node, hostAddresses, podCidrs)
              .withKnownNodePorts(this::programmedNodePorts);
      for (var key : changed) {
        var plan =
            NodePlanner.planServiceClaims(
                family,
                config.nodeName(),
                node,
                config.serviceProxyName(),
                cache.service(key),
                cache.slicesOf(key),
                addresses,
                cache.zoneDemand());
        changedWarnings.addAll(plan.warnings());
        claims.put(key, plan.ports());
      }
      warnings.partial(changedWarnings, this::warn);
      // A change of one Service can hand an address to or take it from another: re-render both.
      var changes = store.update(claims, NodePlanner.zoneOf(node));
      touchedUdp = changes.touchedUdp();
      outcome = plane.update(countedChanges(changes.ports()));
      if (outcome.status() == DataPlane.Status.NEEDS_FULL) {
        // The change cannot be expressed as a delta of the kernel's state: replace everything.
        decision = SyncPolicy.Decision.ESCALATED;
        full = true;
        outcome = plane.replaceAll(rules(store.allPorts()), nodeAddresses, podCidrs);
      }
    }
    reportCollisions(store.collisions());
    reportObservedCap();
    warnings.partial(plane.warnings(), this::warn);
    metrics.planWarnings(family, warnings.countsByReason());
    boolean failed = outcome.status() == DataPlane.Status.FAILED;
    if (failed) {
      policy.failed();
      log.atError()
          .addKeyValue("family", family.apiName())
          .addKeyValue("mode", metrics.mode())
          .addKeyValue("full", full)
          .addKeyValue("error", outcome.error())
          .log(
              "Loading the rules failed; the previous rules stay in place and the next sync is full");
    }
    var finished = clock.instant();
    if (full && !failed) {
      policy.fullLoaded(basis);
    }
    var plan = failed ? null : currentPlan();
    tell(
        new SyncResult(
            family,
            decision,
            failed
                ? SyncResult.Outcome.FAILED
                : outcome.status() == DataPlane.Status.LOADED
                    ? SyncResult.Outcome.LOADED
                    : SyncResult.Outcome.UNCHANGED,
            outcome.error(),
            started,
            finished,
            failed ? 0 : plane.linesLoaded(),
            plan,
            touchedUdp,
            triggers,
            hostAddresses));
    if (!failed) {
      logSync(decision, changed.size(), plan.ports(), Duration.between(started, finished), planned);
    }
    return !failed;
  }

  /** Full syncs and the first get an INFO line; partial syncs are summed up now and then. */
  private void logSync(
      SyncPolicy.Decision decision,
      int changedServices,
      List<NodePlanner.PlannedPort> ports,
      Duration elapsed,
      Duration planned) {
    if (decision.full() || !loggedFirstSync) {
      loggedFirstSync = true;
      var line = log.atInfo();
      if (planned != null) {
        // How much of a full sync the plan took; the rest is the data plane's render and load.
        line = line.addKeyValue("planMs", planned.toMillis());
      }
      line.addKeyValue("family", family.apiName())
          .addKeyValue("full", decision.full())
          .addKeyValue("why", decision.reason().label())
          .addKeyValue("services", store.serviceCount())
          .addKeyValue("servicePorts", ports.size())
          .addKeyValue("endpoints", ports.stream().mapToInt(p -> p.endpoints().size()).sum())
          .addKeyValue("rules", plane.linesLoaded())
          .addKeyValue("elapsedMs", elapsed.toMillis())
          .log("Synced proxy rules");
      return;
    }
    log.atDebug()
        .addKeyValue("family", family.apiName())
        .addKeyValue("changedServices", changedServices)
        .addKeyValue("rules", plane.linesLoaded())
        .addKeyValue("elapsedMs", elapsed.toMillis())
        .log("Partial sync");
    if (changedServices == 0) {
      // Events that changed nothing the rules use still run a sync; it loads nothing.
      return;
    }
    partialSyncs
        .event()
        .sum("changedServices", changedServices)
        .sum("rules", plane.linesLoaded())
        .max("longestMs", elapsed.toMillis())
        .record();
  }

  /**
   * The changed ports as the data plane takes them, counted per locality or not; a port that comes
   * or goes can push another out of the series cap or let one in, which is re-rendered too.
   */
  private Map<ServicePortName, ServicePortRules> countedChanges(
      Map<ServicePortName, NodePlanner.PlannedPort> changedPorts) {
    var flipped = new TreeSet<ServicePortName>();
    // Ports that go first, so a port that comes in finds the room they leave.
    changedPorts.forEach(
        (name, planned) -> {
          if (planned == null) {
            flipped.addAll(observed.want(name, false));
          }
        });
    changedPorts.forEach(
        (name, planned) -> {
          if (planned != null) {
            flipped.addAll(observed.want(name, observed.wants(planned.port())));
          }
        });
    var all = new HashMap<>(changedPorts);
    for (var name : flipped) {
      if (!all.containsKey(name)) {
        store.port(name).ifPresent(p -> all.put(name, p));
      }
    }
    Map<ServicePortName, ServicePortRules> changes = new HashMap<>();
    all.forEach(
        (name, planned) ->
            changes.put(
                name,
                planned == null ? null : NftPlanRenderer.rules(planned, observed.counted(name))));
    return changes;
  }

  /** Each collision logged once, when it appears, naming both Services; the gauge kept current. */
  private void reportCollisions(List<AddressOwners.Collision> collisions) {
    var now = new HashSet<String>();
    for (var collision : collisions) {
      var text = collision.toString();
      now.add(text);
      if (!reportedCollisions.contains(text)) {
        log.atWarn()
            .addKeyValue("family", family.apiName())
            .addKeyValue("address", collision.key())
            .addKeyValue("owner", collision.winner().service())
            .addKeyValue("loser", collision.loser().service())
            .log("Address collision: " + text);
      }
    }
    reportedCollisions = now;
    metrics.addressCollisions(family, collisions.size());
  }

  /** A WARN and a gauge while --nodeport-addresses matches no address here, a line when it does. */
  private void reportNodePortAddresses(List<String> addresses) {
    var rules = config.rules();
    boolean nowhere = rules.restrictsNodePorts(family) && addresses.isEmpty();
    metrics.nodePortsServedNowhere(family, nowhere);
    if (servedNowhere != null && servedNowhere == nowhere) {
      return;
    }
    servedNowhere = nowhere;
    if (nowhere) {
      log.atWarn()
          .addKeyValue("family", family.apiName())
          .addKeyValue("nodeportAddresses", String.join(",", rules.nodePortCidrs()))
          .log(
              "--nodeport-addresses matches no address of this node in this family; NodePorts"
                  + " are accepted on no address until one matches");
    } else if (rules.restrictsNodePorts(family)) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("addresses", String.join(",", addresses))
          .log("NodePorts are accepted on the addresses --nodeport-addresses selects");
    }
  }

  /**
   * When local traffic detection falls back from the configured mode: a WARN when that starts or
   * changes (not every sync), an INFO when the configured mode is back, the gauge, the health
   * bodies and {@code explain --live}.
   */
  private void reportLocalDetection(LocalDetection detection) {
    var description = detection.describe();
    if (description.equals(reportedDetection)) {
      return;
    }
    boolean wasDegraded = reportedDetection != null && health.localDetectionWarning(family) != null;
    reportedDetection = description;
    metrics.localDetectionDegraded(family, detection.degraded());
    health.localDetection(family, detection.degraded() ? description : null);
    published = new Published(published.plan(), published.state().withLocalTraffic(description));
    if (detection.degraded()) {
      log.atWarn()
          .addKeyValue("family", family.apiName())
          .addKeyValue("configured", detection.configured().apiName())
          .addKeyValue("effective", detection.effectiveName())
          .addKeyValue("missing", detection.missing())
          .log(
              "Local traffic detection falls back: the rules are programmed with "
                  + detection.effectiveName()
                  + " until the configured mode's input is there (see docs/install.md)");
    } else if (wasDegraded) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("mode", detection.effectiveName())
          .log("Local traffic detection uses the configured mode again");
    }
  }

  private void reportObservedCap() {
    int dropped = observed.dropped();
    metrics.observedServicePortsDropped(family, dropped);
    if (dropped > 0 && !capBiting) {
      log.atWarn()
          .addKeyValue("family", family.apiName())
          .addKeyValue("droppedServicePorts", dropped)
          .addKeyValue("maxSeries", config.rules().observeMaxSeries())
          .log(
              "--observe-locality-max-series is reached: some Service ports are not counted per"
                  + " locality (proxima_proxy_observed_service_ports_dropped)");
    } else if (dropped == 0 && capBiting) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .log("Every Service port that wants per-locality counting is counted again");
    }
    capBiting = dropped > 0;
  }

  private List<ServicePortRules> rules(List<NodePlanner.PlannedPort> ports) {
    return ports.stream()
        .map(p -> NftPlanRenderer.rules(p, observed.counted(p.port().name())))
        .toList();
  }

  /** What of the Node the rules depend on: its zone (topology) and name; addresses are separate. */
  private static Object nodeIdentity(Node node) {
    return node == null
        ? "absent"
        : List.of(
            node.getMetadata().getName(),
            String.valueOf(NodePlanner.zoneOf(node)),
            // Load-balancer source ranges admit the LB IPs when they admit a node address.
            String.valueOf(node.getStatus() == null ? null : node.getStatus().getAddresses()));
  }

  /**
   * What a tenant's Service may not point at: node and pod addresses, Service and external CIDRs.
   */
  private AddressPolicy addressPolicy(
      Node node, List<String> hostAddresses, List<String> podCidrs) {
    var nodeAddresses = new ArrayList<>(NodeIps.all(node));
    nodeAddresses.addAll(hostAddresses);
    var podRanges = new ArrayList<>(podCidrs);
    podRanges.addAll(config.rules().clusterCidrs());
    return new AddressPolicy(
        nodeAddresses,
        podRanges,
        cache.serviceCidrs(),
        config.rules().externalIpCidrs(),
        Set.of(),
        cache.clusterNodeAddresses());
  }

  /** The NodePorts programmed now, for a partial sync's loop check: asked for rarely. */
  private Set<String> programmedNodePorts() {
    var result = new HashSet<String>();
    for (var planned : store.allPorts()) {
      if (planned.port().nodePort() != 0) {
        result.add(AddressPolicy.nodePortKey(planned.port().protocol(), planned.port().nodePort()));
      }
    }
    return result;
  }

  /** One line per object and reason, when its warnings appear or change: never per endpoint. */
  private void warn(PlanWarnings.Group group) {
    log.atWarn()
        .addKeyValue("family", family.apiName())
        .addKeyValue("object", group.object())
        .addKeyValue("reason", group.reason())
        .addKeyValue("count", group.count())
        .log(group.line());
  }

  /**
   * The cache's Services and slices, taken once per sync pass and only when a full sync asks for
   * them, so the families of a pass plan from the same objects.
   */
  static final class OnePassObjects implements Supplier<OnePassObjects.Objects> {
    record Objects(Collection<Service> services, Collection<EndpointSlice> slices) {}

    private final ProxyCache cache;
    private Objects objects;

    OnePassObjects(ProxyCache cache) {
      this.cache = cache;
    }

    @Override
    public Objects get() {
      if (objects == null) {
        objects = new Objects(cache.services(), cache.endpointSlices());
      }
      return objects;
    }
  }
}
