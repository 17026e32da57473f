package dev.proxima.proxy.runtime;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.cli.DaemonThreads;
import dev.proxima.http.ProbeHandler;
import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeResponse;
import dev.proxima.http.PrometheusMetricsHandler;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.explain.LiveExplain;
import dev.proxima.proxy.explain.ObservedLocality;
import dev.proxima.proxy.explain.SyncState;
import dev.proxima.proxy.health.ComponentPages;
import dev.proxima.proxy.health.HealthServer;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.health.ServiceHealthServers;
import dev.proxima.proxy.informers.KubeProxyCache;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ConnectionLocalityMetrics;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.metrics.ZoneSpillMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.ProxyState;
import dev.proxima.proxy.sync.SyncRunner;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live proxy: informers and change trackers feed a bounded-frequency sync runner, which plans,
 * renders and loads each family's ruleset. Health and metrics are served beside it.
 */
public final class ProxyServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProxyServer.class);

  /** The taint the cluster autoscaler puts on a node it is about to delete. */
  static final String TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler";

  private final KubeProxyCache cache;
  private final List<Proxier> proxiers = new ArrayList<>();

  private final SyncRunner runner;

  private final ProxyHealth health;
  private final java.time.Instant startedAt;
  private volatile Map<String, String> flags = Map.of();
  private volatile List<String> untunedSysctls = List.of();
  private final String nodeName;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private final PrometheusRegistry registry;
  private HealthServer healthServer;
  private final ServiceHealthServers serviceHealth;
  private final Host host;
  private ProbeHttpServer metricsServer;
  private ExplainServer explainServer;
  private final Duration kernelCheckPeriod;

  /** Set once the informers have listed and the host is prepared: see {@link #start}. */
  private volatile boolean readyToSync;

  /** The kernel's connection counters, or null when this proxy counts nothing. */
  private ConnectionLocalityMetrics connectionCounters;

  /** A scrape's wait per family for a fresh counter read: two stay within its usual 10 s. */
  private static final Duration COUNTER_READ_WAIT = Duration.ofSeconds(2);

  /** One thread per family, so a slow read of one delays neither the other nor any sync. */
  private final java.util.concurrent.ExecutorService counterReads =
      Executors.newFixedThreadPool(2, DaemonThreads.named("proxy-counter-read"));

  private final ScheduledExecutorService kernelCheck =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("proxy-periodic"));

  public ProxyServer(
      KubernetesClient client,
      ProxyConfig config,
      ProxyMode mode,
      DataPlanes planes,
      Host host,
      PrometheusRegistry registry,
      Duration informerResync,
      Clock clock) {
    this.clock = clock;
    this.registry = registry;
    this.metrics = new ProxyMetrics(registry, mode);
    this.kernelCheckPeriod = config.syncPeriod();
    this.health = new ProxyHealth(clock, config.healthTimeout());
    this.startedAt = clock.instant();
    this.nodeName = config.nodeName();
    var state = new ProxyState(clock.instant(), config.nodeName());
    this.cache =
        new KubeProxyCache(
            client,
            config.nodeName(),
            informerResync,
            state.changes(),
            new KubeProxyCache.Listener() {
              @Override
              public void serviceEvent(int pendingServices) {
                metrics.serviceChanged(pendingServices);
                changed();
              }

              @Override
              public void endpointsEvent(int pendingSlices) {
                metrics.endpointsChanged(pendingSlices);
                changed();
              }

              @Override
              public void nodeEvent() {
                changed();
              }
            },
            config.zoneDemandNamespace());
    this.host = host;
    var counters = new LinkedHashMap<String, Supplier<Optional<ConnectionCounts>>>();
    for (var family : IpFamily.values()) {
      var plane = planes.forFamily(family, metrics, clock);
      counters.put(
          family.apiName(),
          new LatestCounterRead(plane::connectionCounts, counterReads, COUNTER_READ_WAIT));
      proxiers.add(
          new Proxier(
              family, config, cache, plane, host, metrics, health, clock, state.plans(family)));
    }
    registry.register(
        new ZoneSpillMetrics(
            () ->
                ZoneSpillMetrics.of(
                    proxiers.stream()
                        .map(p -> p.published().plan())
                        .filter(Objects::nonNull)
                        .toList()),
            config.rules().observeMaxSeries()));
    if (config.rules().observeLocality().counts()) {
      // --observe-locality=off counts nothing: no series rather than zeros that look like no
      // traffic.
      connectionCounters =
          new ConnectionLocalityMetrics(counters, () -> NodePlanner.zoneOf(cache.node()));
      registry.register(connectionCounters);
    }
    this.serviceHealth =
        new ServiceHealthServers(() -> health.snapshot().healthy(), metrics::healthCheckBindFailed);
    var healthChecks = new ServiceHealthChecks(serviceHealth, config.rules(), cache);
    proxiers.forEach(proxier -> proxier.subscribe(healthChecks));
    this.runner =
        new SyncRunner(
            "proxy-sync",
            this::syncAll,
            config.minSyncPeriod(),
            config.syncPeriod(),
            config.fullSyncPeriod(),
            clock,
            () -> proxiers.forEach(Proxier::removeStale));
  }

  private void changed() {
    var now = clock.instant();
    for (var proxier : proxiers) {
      health.queued(proxier.family());
      metrics.queued(proxier.family(), now);
    }
    var node = cache.node();
    health.nodeIneligible(whyIneligible(node));
    // Before the first lists a sync would do nothing yet hold the first real one back by
    // --min-sync-period, and before the host is prepared the other mode's rules may be in place.
    if (readyToSync) {
      runner.request();
    }
  }

  /**
   * Why load balancers should drain this node, as kube-proxy's /healthz decides (KEP-3836), or
   * null: its Node is missing, being deleted, or tainted for scale-down. /livez ignores this.
   */
  private String whyIneligible(Node node) {
    if (node == null) {
      return "node " + nodeName + " not found";
    }
    if (node.getMetadata() != null && node.getMetadata().getDeletionTimestamp() != null) {
      return "node is being deleted";
    }
    if (node.getSpec() != null
        && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream()
            .anyMatch(taint -> TO_BE_DELETED_TAINT.equals(taint.getKey()))) {
      return "node has the " + TO_BE_DELETED_TAINT + " taint";
    }
    return null;
  }

  private boolean syncAll() {
    boolean ok = true;
    var changed = cache.drainChangedServices();
    // Read once per pass: both families and the health-check listeners select from the same.
    var hostAddresses = host.addresses(cache);
    var objects = new Proxier.OnePassObjects(cache);
    try {
      for (var proxier : proxiers) {
        ok &= proxier.sync(changed, hostAddresses, objects);
      }
    } finally {
      health.passEnded();
    }
    if (ok) {
      metrics.pendingCleared();
    }
    return ok;
  }

  /**
   * Starts serving health and metrics, the informers, and the sync loop once they have synced. With
   * {@code explain --live} on a loopback address, or none for null; a port it cannot bind is
   * logged, not fatal: a debugging aid must not keep Services from being programmed. No sync runs
   * before {@code hostPrepared} (the other mode's rules removed, or that failed and was logged).
   */
  public void start(
      InetSocketAddress healthz,
      InetSocketAddress metricsAddress,
      InetSocketAddress explain,
      CompletionStage<?> hostPrepared)
      throws IOException {
    if (explain != null) {
      ExplainServer.requireLoopback(explain);
    }
    // A proxy that never reaches the API server must not look ready forever; /livez ignores
    // this, so such a proxy is not restarted in a loop over something a restart cannot fix.
    health.awaitingFirstSync();
    // The first list request leaves before anything else here: the API server's answer is the
    // longest wait of a start, and the servers below fit in it.
    var listed = cache.start();
    healthServer = HealthServer.start(healthz, health, metrics::healthz, metrics::livez);
    metricsServer =
        startMetrics(
            metricsAddress,
            registry,
            connectionCounters == null
                ? List.of()
                : List.of(connectionCounters.serviceConnections()),
            componentPages());
    if (explain != null) {
      try {
        explainServer = ExplainServer.start(explain, this::liveExplain);
      } catch (IOException unbound) {
        log.atError()
            .addKeyValue("address", explain)
            .addKeyValue("error", unbound.getMessage())
            .log("Cannot serve explain --live; the proxy runs on without it");
      }
    }
    listed
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                // Each failed attempt was already logged with its URL and cause; this only
                // happens when stopping before the first sync.
                log.atWarn()
                    .addKeyValue("cause", ApiServerFailures.cause(failure))
                    .log("Informers stopped before they synced");
                log.atDebug().setCause(failure).log("Informers stopped before they synced");
                return;
              }
              if (hostPrepared.toCompletableFuture().isDone()) {
                log.atInfo().log("Informers synced; programming rules");
              } else {
                // The removal can wait on the iptables lock for long; say what the rules wait on.
                log.atInfo().log(
                    "Informers synced; programming rules once the other mode's leftover rules"
                        + " are removed");
              }
            })
        // Done either way: a failed preparation was logged by whoever prepared the host.
        .thenCombine(
            hostPrepared.handle((prepared, failure) -> null), (listedToo, prepared) -> null)
        .thenRun(
            () -> {
              // Only from here may a change ask for a sync (changed()), and /livez watch the loop.
              health.syncLoopStarted();
              readyToSync = true;
              // The first lists' additions reach no handler: mark the queued sync and eligibility.
              try {
                changed();
              } catch (RuntimeException unexpected) {
                // Inside a completion stage an exception would vanish, and with it the first sync.
                log.atError().setCause(unexpected).log("Could not ask for the first sync");
                runner.request();
              }
            });
    runner.start();
    long summaryMillis = Proxier.PARTIAL_SYNC_SUMMARY_INTERVAL.toMillis() / 4;
    kernelCheck.scheduleWithFixedDelay(
        () -> proxiers.forEach(Proxier::flushLogSummary),
        summaryMillis,
        summaryMillis,
        TimeUnit.MILLISECONDS);
    // A printing loader's kernel is always intact, so a dry run's checks find nothing.
    long millis = kernelCheckPeriod.toMillis();
    kernelCheck.scheduleWithFixedDelay(this::checkKernel, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * {@code /metrics} with the per-Service locality family streamed (tens of thousands of series),
   * plus client_java's exporter's {@code /-/healthy} and a page linking to the metrics.
   */
  private static ProbeHttpServer startMetrics(
      InetSocketAddress address,
      PrometheusRegistry registry,
      List<dev.proxima.http.StreamedFamily> streamed,
      Map<String, ProbeHandler> pages)
      throws IOException {
    var paths = new java.util.HashMap<String, ProbeHandler>(pages);
    paths.putAll(
        Map.of(
            "/metrics",
            // A scrape reads the kernel's connection counters, which nft 1.0.6 answers by reading
            // the whole ruleset (seconds at the extreme shapes): never on the probes' event loop.
            ProbeHandler.blocking(new PrometheusMetricsHandler(registry, streamed)),
            "/-/healthy",
            request -> ProbeResponse.text(200, "Exporter is healthy.\n"),
            "/",
            request ->
                ProbeResponse.of(
                    200,
                    "text/html; charset=utf-8",
                    "<html><body><h1>proxima-proxy</h1><p><a href=\"/metrics\">/metrics</a></p>"
                        + "</body></html>\n",
                    Map.of())));
    return ProbeHttpServer.start(address, paths);
  }

  /** {@code /statusz} and {@code /flagz}, kube-proxy's z-pages, on the metrics server. */
  private Map<String, ProbeHandler> componentPages() {
    var build = dev.proxima.cli.BuildInfo.current();
    var version = build.version() + " (" + build.shortRevision() + ")";
    return Map.of(
        "/statusz",
        request ->
            ProbeResponse.text(
                200,
                ComponentPages.statusz(
                    "proxima-proxy",
                    startedAt,
                    clock.instant(),
                    version,
                    List.of("/healthz", "/livez", "/metrics", "/statusz", "/flagz", "/-/healthy"),
                    untunedSysctls)),
        "/flagz",
        request -> ProbeResponse.text(200, ComponentPages.flagz("proxima-proxy", flags)));
  }

  public void componentFlags(Map<String, String> value) {
    flags = Map.copyOf(value);
  }

  /** The sysctls ({@code name=value}) not set at start: lines of /statusz and a series each. */
  public void untunedSysctls(List<String> settings) {
    untunedSysctls = List.copyOf(settings);
    metrics.sysctlsUntuned(untunedSysctls);
  }

  /** Another tool may flush the tables under us (kube-proxy polls its canary chains for this). */
  private void checkKernel() {
    try {
      boolean intact = true;
      for (var proxier : proxiers) {
        intact &= proxier.checkKernel();
      }
      if (!intact) {
        runner.request();
      }
    } catch (RuntimeException unexpected) {
      log.atWarn().setCause(unexpected).log("Checking the kernel's rules failed");
    }
  }

  public void iptablesBackend(String label) {
    metrics.iptablesBackend(label);
  }

  public boolean hasSynced() {
    return cache.hasSynced();
  }

  /** Each family's latest plan, IPv4 first; families not synced yet are left out. */
  public List<dev.proxima.proxy.plan.NodePlanner.FamilyPlan> plans() {
    return proxiers.stream().map(Proxier::lastPlan).filter(java.util.Objects::nonNull).toList();
  }

  /** What {@code explain --live} shows, from what the sync thread published: it never waits. */
  public LiveExplain liveExplain(ObjectKey service) {
    var plans = new ArrayList<dev.proxima.proxy.plan.NodePlanner.FamilyPlan>();
    var states = new ArrayList<SyncState>();
    for (var proxier : proxiers) {
      var published = proxier.published();
      states.add(published.state());
      if (published.plan() != null) {
        plans.add(published.plan());
      }
    }
    return LiveExplain.of(
        nodeName,
        clock.instant(),
        cache.hasSynced(),
        cache.pendingChanges(),
        states,
        plans,
        service,
        LiveExplain.MAX_SERVICE_PORTS,
        observedLocality());
  }

  /** Read from the kernel now, once per family, as a scrape reads them. */
  private ObservedLocality observedLocality() {
    if (connectionCounters == null) {
      return ObservedLocality.notCounted("--observe-locality=off: the rules count no connection");
    }
    var counts = new HashMap<ServicePortName, ObservedLocality.Counts>();
    connectionCounters
        .readServicePorts()
        .forEach(
            (port, byLocality) ->
                counts.put(
                    port,
                    new ObservedLocality.Counts(
                        byLocality.getOrDefault(Locality.NODE, 0L),
                        byLocality.getOrDefault(Locality.ZONE, 0L),
                        byLocality.getOrDefault(Locality.OTHER_ZONE, 0L),
                        byLocality.getOrDefault(Locality.UNKNOWN, 0L))));
    return new ObservedLocality(null, counts);
  }

  /** -1 when it is not served. */
  public int explainPort() {
    return explainServer == null ? -1 : explainServer.port();
  }

  public int healthPort() {
    return healthServer.port();
  }

  public int metricsPort() {
    return metricsServer.port();
  }

  @Override
  public void close() {
    kernelCheck.shutdownNow();
    counterReads.shutdownNow();
    runner.close();
    serviceHealth.close();
    cache.close();
    if (healthServer != null) {
      healthServer.close();
    }
    if (metricsServer != null) {
      metricsServer.close();
    }
    if (explainServer != null) {
      explainServer.close();
    }
  }
}
