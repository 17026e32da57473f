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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Programs one IP family. A full sync plans every Service and replaces table {@code proxima} in one
 * transaction; a partial sync re-plans only the Services that changed, renders only their ports and
 * loads only the difference. A failed transaction leaves the previous ruleset in place (nft is
 * atomic), is counted, and makes the next sync full.
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

  /** This family's plan between syncs: claims, address owners, and ports as programmed. */
  private final PlanStore store;

  /** Which ports are counted per locality, under --observe-locality-max-series. */
  private final ObservedPortCap observed;

  /** Whether the cap left ports out at the latest sync, so its WARN is logged once per episode. */
  private boolean capBiting;

  /** The plan's warnings as last told: each object and reason logged once, when it changes. */
  private final PlanWarnings warnings = new PlanWarnings();

  private final AddressCollisionReport collisions;
  private final NodePortAddressReport nodePortAddresses;
  private final LocalDetectionReport localDetection;
  private final SyncPolicy policy;
  private boolean loggedFirstSync;

  private final RateLimitedSummary partialSyncs;

  /**
   * What {@code explain --live} reads of this family, from another thread: the plan the latest
   * successful sync loaded (null before the first) and how the syncs went.
   */
  public record Published(NodePlanner.FamilyPlan plan, SyncState state) {}

  private final LivePublisher publisher;
  private final List<SyncObserver> observers = new CopyOnWriteArrayList<>();

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
    this.collisions = new AddressCollisionReport(family, metrics);
    this.nodePortAddresses = new NodePortAddressReport(family, config.rules(), metrics);
    this.observed =
        new ObservedPortCap(
            plane.countsPerServicePort() ? config.rules().observeLocality() : ObserveLocality.OFF,
            config.rules().observeMaxSeries());
    // What every sync tells: explain --live, health, metrics, then the UDP conntrack cleanup.
    this.publisher = new LivePublisher(family);
    this.localDetection =
        new LocalDetectionReport(family, metrics, health, publisher::localTraffic);
    subscribe(publisher);
    subscribe(
        result -> {
          if (result.succeeded()) {
            health.updated(result.family());
          }
        });
    subscribe(new SyncMetrics(metrics));
    subscribe(new UdpFlowCleanup(host, metrics, clock));
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

  /** Whether a sync has loaded rules; cheaper than {@link #lastPlan}, which lists every port. */
  public synchronized boolean loadedOnce() {
    return policy.loadedOnce();
  }

  /** The plan of the latest sync, or null before the first. */
  public synchronized NodePlanner.FamilyPlan lastPlan() {
    return policy.loadedOnce() ? currentPlan() : null;
  }

  /** The latest loaded plan and sync state, without waiting for a sync in progress. */
  public Published published() {
    return publisher.published();
  }

  public void subscribe(SyncObserver observer) {
    observers.add(observer);
  }

  private void tell(SyncResult result) {
    observers.forEach(observer -> observer.synced(result));
  }

  private NodePlanner.FamilyPlan currentPlan() {
    return store.current(NodePlanner.zoneOf(cache.node()));
  }

  /**
   * Deletes what earlier syncs stopped using, when it is safe to; nothing while the next sync must
   * be full, since the kernel may then not hold what the last sync meant to load.
   */
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
    return sync(changed, host.addresses(cache));
  }

  /** With the host's addresses read once for every family of a sync pass. */
  public synchronized boolean sync(Set<ObjectKey> changed, List<String> hostAddresses) {
    return sync(changed, hostAddresses, new OnePassObjects(cache));
  }

  /** The families of a pass share {@code objects}, so that they plan from the same objects. */
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
    nodePortAddresses.report(nodeAddresses);
    var podCidrs = NodeIps.podCidrs(node);
    // NodeCIDR on a Node without spec.podCIDRs falls back (LocalDetection) rather than waiting:
    // many clusters never set them, and a node must not go without a Service proxy for it.
    var detection = LocalDetection.of(config.rules(), family, podCidrs);
    localDetection.report(detection);
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
      var services = pass.services();
      var slices = pass.slices();
      var plan =
          NodePlanner.planClaims(
              family,
              config.nodeName(),
              node,
              config.serviceProxyName(),
              services,
              slices,
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
        var service = cache.service(key);
        var slices = cache.slicesOf(key);
        var plan =
            NodePlanner.planServiceClaims(
                family,
                config.nodeName(),
                node,
                config.serviceProxyName(),
                service,
                slices,
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
    collisions.report(store.collisions());
    reportObservedCap();
    warnings.partial(plane.warnings(), this::warn);
    metrics.planWarnings(family, warnings.countsByReason());
    if (outcome.status() == DataPlane.Status.FAILED) {
      policy.failed();
      log.atError()
          .addKeyValue("family", family.apiName())
          .addKeyValue("mode", metrics.mode())
          .addKeyValue("full", full)
          .addKeyValue("error", outcome.error())
          .log(
              "Loading the rules failed; the previous rules stay in place and the next sync is full");
      tell(
          new SyncResult(
              family,
              decision,
              SyncResult.Outcome.FAILED,
              outcome.error(),
              started,
              clock.instant(),
              0,
              null,
              touchedUdp,
              triggers,
              null,
              hostAddresses));
      return false;
    }
    var finished = clock.instant();
    if (full) {
      policy.fullLoaded(basis);
    }
    var plan = currentPlan();
    var ports = plan.ports();
    tell(
        new SyncResult(
            family,
            decision,
            outcome.status() == DataPlane.Status.LOADED
                ? SyncResult.Outcome.LOADED
                : SyncResult.Outcome.UNCHANGED,
            null,
            started,
            finished,
            plane.linesLoaded(),
            plan,
            touchedUdp,
            triggers,
            null,
            hostAddresses));
    logSync(decision, changed.size(), ports, Duration.between(started, finished), planned);
    return true;
  }

  /**
   * Full syncs and the first one after start get their own INFO line; partial syncs, which follow
   * every change, are summed up at most once per {@link #PARTIAL_SYNC_SUMMARY_INTERVAL}.
   */
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
   * The changed ports as the data plane takes them, each counted per locality or not; a port that
   * comes or goes can push another out of the series cap or let one in, and that port is
   * re-rendered too.
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
   * What a tenant's Service may not point at on this node: the node's addresses (its status and its
   * interfaces), every other Node's addresses, the pod ranges (the Node's and --cluster-cidr), the
   * ServiceCIDRs, and --external-ip-cidrs.
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
    var result = new java.util.HashSet<String>();
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
}
