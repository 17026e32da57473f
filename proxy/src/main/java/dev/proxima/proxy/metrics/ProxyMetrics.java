package dev.proxima.proxy.metrics;

import dev.proxima.cli.BuildInfo;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The proxy's metrics under kube-proxy's names and labels, so dashboards and alerts written for
 * kube-proxy keep working; Proxima's own are prefixed {@code proxima_proxy_}.
 */
public final class ProxyMetrics {
  private final Histogram syncDuration;
  private final Histogram fullSyncDuration;
  private final Histogram partialSyncDuration;
  private final Gauge lastSync;
  private final Gauge lastQueued;
  private final Histogram networkProgramming;
  private final Gauge endpointChangesPending;
  private final Counter endpointChanges;
  private final Gauge serviceChangesPending;
  private final Counter serviceChanges;
  private final GaugeNamedTotal noLocalEndpoints;
  private final ProxyMode mode;
  private final Counter nftablesFailures;
  private final Counter iptablesRestoreFailures;
  private final Counter iptablesPartialRestoreFailures;
  private final GaugeNamedTotal iptablesRules;
  private final Gauge iptablesLastRules;
  private final Gauge iptablesBackend;
  private final Counter healthz;
  private final Counter livez;
  private final Gauge servicePortsByTopology;
  private final Gauge topologyFallbacks;
  private final Gauge addressCollisions;
  private final Gauge planWarnings;
  private final Gauge observedPortsDropped;
  private final Gauge nodePortsServedNowhere;
  private final Gauge localDetectionDegraded;
  private final Gauge nftablesStale;
  private final Gauge sysctlUntuned;
  private final Counter healthCheckBindFailures;
  private final Histogram conntrackDuration;
  private final Counter conntrackDeleted;

  /**
   * Registers the shared metrics and those of one mode, as kube-proxy does: the nftables failure
   * counter, or the iptables restore failures, rule counts and backend.
   */
  public ProxyMetrics(PrometheusRegistry registry, ProxyMode mode) {
    this.mode = mode;
    BuildInfo.current().register(registry);
    syncDuration =
        syncHistogram(
            registry,
            "kubeproxy_sync_proxy_rules_duration_seconds",
            "SyncProxyRules latency in seconds");
    fullSyncDuration =
        syncHistogram(
            registry,
            "kubeproxy_sync_full_proxy_rules_duration_seconds",
            "SyncProxyRules latency in seconds for full resyncs");
    partialSyncDuration =
        syncHistogram(
            registry,
            "kubeproxy_sync_partial_proxy_rules_duration_seconds",
            "SyncProxyRules latency in seconds for partial resyncs");
    lastSync =
        Gauge.builder()
            .name("kubeproxy_sync_proxy_rules_last_timestamp_seconds")
            .help("The last time proxy rules were successfully synced")
            .labelNames("ip_family")
            .register(registry);
    lastQueued =
        Gauge.builder()
            .name("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds")
            .help("The last time a sync of proxy rules was queued")
            .labelNames("ip_family")
            .register(registry);
    networkProgramming =
        Histogram.builder()
            .name("kubeproxy_network_programming_duration_seconds")
            .help("In Cluster Network Programming Latency in seconds")
            .labelNames("ip_family")
            .classicUpperBounds(networkProgrammingBuckets())
            .register(registry);
    endpointChangesPending =
        Gauge.builder()
            .name("kubeproxy_sync_proxy_rules_endpoint_changes_pending")
            .help("Pending proxy rules Endpoint changes")
            .register(registry);
    endpointChanges =
        Counter.builder()
            .name("kubeproxy_sync_proxy_rules_endpoint_changes_total")
            .help("Cumulative proxy rules Endpoint changes")
            .register(registry);
    serviceChangesPending =
        Gauge.builder()
            .name("kubeproxy_sync_proxy_rules_service_changes_pending")
            .help("Pending proxy rules Service changes")
            .register(registry);
    serviceChanges =
        Counter.builder()
            .name("kubeproxy_sync_proxy_rules_service_changes_total")
            .help("Cumulative proxy rules Service changes")
            .register(registry);
    noLocalEndpoints =
        GaugeNamedTotal.register(
            registry,
            "kubeproxy_sync_proxy_rules_no_local_endpoints",
            "Number of services with a Local traffic policy and no endpoints",
            "traffic_policy",
            "ip_family");
    boolean nft = mode == ProxyMode.nftables;
    nftablesFailures =
        nft
            ? Counter.builder()
                .name("kubeproxy_sync_proxy_rules_nftables_sync_failures_total")
                .help("Cumulative proxy nftables sync failures")
                .labelNames("ip_family")
                .register(registry)
            : null;
    nftablesStale =
        nft
            ? Gauge.builder()
                .name("proxima_proxy_nftables_stale_objects")
                .help("Chains and sets no Service uses any more, emptied and waiting to be deleted")
                .labelNames("ip_family")
                .register(registry)
            : null;
    iptablesRestoreFailures =
        nft
            ? null
            : Counter.builder()
                .name("kubeproxy_sync_proxy_rules_iptables_restore_failures_total")
                .help("Cumulative proxy iptables restore failures")
                .labelNames("ip_family")
                .register(registry);
    iptablesPartialRestoreFailures =
        nft
            ? null
            : Counter.builder()
                .name("kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total")
                .help("Cumulative proxy iptables failures with partial sync")
                .labelNames("ip_family")
                .register(registry);
    iptablesRules =
        nft
            ? null
            : GaugeNamedTotal.register(
                registry,
                "kubeproxy_sync_proxy_rules_iptables",
                "Total number of iptables rules owned by the proxy",
                "table",
                "ip_family");
    iptablesLastRules =
        nft
            ? null
            : Gauge.builder()
                .name("kubeproxy_sync_proxy_rules_iptables_last")
                .help("Number of iptables rules written by the proxy in the last sync")
                .labelNames("table", "ip_family")
                .register(registry);
    iptablesBackend =
        nft
            ? null
            : Gauge.builder()
                .name("proxima_proxy_iptables_backend")
                .help("1 for the iptables backend (nft or legacy) the proxy detected and uses")
                .labelNames("backend")
                .register(registry);
    healthz =
        Counter.builder()
            .name("kubeproxy_proxy_healthz_total")
            .help("Cumulative proxy healthz HTTP status")
            .labelNames("code")
            .register(registry);
    livez =
        Counter.builder()
            .name("kubeproxy_proxy_livez_total")
            .help("Cumulative proxy livez HTTP status")
            .labelNames("code")
            .register(registry);
    conntrackDuration =
        syncHistogram(
            registry,
            "kubeproxy_conntrack_reconciler_sync_duration_seconds",
            "Duration of the UDP conntrack cleanup after a sync");
    conntrackDeleted =
        Counter.builder()
            .name("kubeproxy_conntrack_reconciler_deleted_entries_total")
            .help("Stale UDP conntrack entries deleted")
            .labelNames("ip_family")
            .register(registry);
    // Failure and cleanup counters start at 0 in both families, so rate() and increase() read 0.
    for (var family : IpFamily.values()) {
      conntrackDeleted.labelValues(label(family));
      if (nft) {
        nftablesFailures.labelValues(label(family));
      } else {
        iptablesRestoreFailures.labelValues(label(family));
        iptablesPartialRestoreFailures.labelValues(label(family));
      }
    }
    servicePortsByTopology =
        Gauge.builder()
            .name("proxima_proxy_service_ports_by_topology")
            .help(
                "Service ports programmed on this node, by the topology level their endpoints were chosen at")
            .labelNames("level", "ip_family")
            .register(registry);
    topologyFallbacks =
        Gauge.builder()
            .name("proxima_proxy_topology_fallbacks")
            .help(
                "Service ports whose trafficDistribution asks for a closer level than this node uses, by reason")
            .labelNames("reason", "ip_family")
            .register(registry);
    addressCollisions =
        Gauge.builder()
            .name("proxima_proxy_address_collisions")
            .help(
                "Address keys (address, protocol, port) that a Service port claims but another one owns")
            .labelNames("ip_family")
            .register(registry);
    planWarnings =
        Gauge.builder()
            .name("proxima_proxy_plan_warnings")
            .help(
                "Values of Services and EndpointSlices the plan leaves out or changes, by reason (logged once per object and reason when they change)")
            .labelNames("reason", "ip_family")
            .register(registry);
    observedPortsDropped =
        Gauge.builder()
            .name("proxima_proxy_observed_service_ports_dropped")
            .help(
                "Service ports that want per-Service locality counting but are not counted, because --observe-locality-max-series is reached")
            .labelNames("ip_family")
            .register(registry);
    nodePortsServedNowhere =
        Gauge.builder()
            .name("proxima_proxy_nodeport_addresses_unmatched")
            .help(
                "1 when --nodeport-addresses matches no address of this node in this family, so NodePorts are accepted on no address")
            .labelNames("ip_family")
            .register(registry);
    sysctlUntuned =
        Gauge.builder()
            .name("proxima_proxy_sysctl_untuned")
            .help(
                "1 for each sysctl the proxy wanted to set at start but could not (a read-only /proc/sys): set it on the node")
            .labelNames("name")
            .register(registry);
    localDetectionDegraded =
        Gauge.builder()
            .name("proxima_proxy_local_detection_degraded")
            .help(
                "1 while this family's rules cannot use the configured --detect-local-mode (NodeCIDR on a Node without spec.podCIDRs) and use a fallback")
            .labelNames("ip_family")
            .register(registry);
    healthCheckBindFailures =
        Counter.builder()
            .name("proxima_proxy_health_check_node_port_bind_failures_total")
            .help("Health-check node port listeners that could not bind")
            .register(registry);
  }

  private static Histogram syncHistogram(PrometheusRegistry registry, String name, String help) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .labelNames("ip_family")
        .classicExponentialUpperBounds(0.001, 2, 15)
        .register(registry);
  }

  /** 0.25 s, 0.5 s, 1 s to 59 s by 1, 60 s to 115 s by 5, 120 s to 300 s by 30, as upstream. */
  static double[] networkProgrammingBuckets() {
    var bounds = new ArrayList<Double>();
    bounds.add(0.25);
    bounds.add(0.5);
    for (int s = 1; s < 60; s++) {
      bounds.add((double) s);
    }
    for (int s = 60; s < 120; s += 5) {
      bounds.add((double) s);
    }
    for (int s = 120; s <= 300; s += 30) {
      bounds.add((double) s);
    }
    return bounds.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static String label(IpFamily family) {
    return family.apiName();
  }

  public void synced(IpFamily family, boolean full, Duration elapsed, Instant now) {
    double seconds = elapsed.toNanos() / 1e9;
    syncDuration.labelValues(label(family)).observe(seconds);
    (full ? fullSyncDuration : partialSyncDuration).labelValues(label(family)).observe(seconds);
    lastSync.labelValues(label(family)).set(now.toEpochMilli() / 1e3);
  }

  public void queued(IpFamily family, Instant now) {
    lastQueued.labelValues(label(family)).set(now.toEpochMilli() / 1e3);
  }

  public void networkProgrammed(IpFamily family, Duration latency) {
    networkProgramming.labelValues(label(family)).observe(latency.toNanos() / 1e9);
  }

  public void serviceChanged(int pending) {
    serviceChanges.inc();
    serviceChangesPending.set(pending);
  }

  public void endpointsChanged(int pending) {
    endpointChanges.inc();
    endpointChangesPending.set(pending);
  }

  public void pendingCleared() {
    serviceChangesPending.set(0);
    endpointChangesPending.set(0);
  }

  public ProxyMode mode() {
    return mode;
  }

  public void nftablesFailed(IpFamily family) {
    nftablesFailures.labelValues(label(family)).inc();
  }

  /** A failed iptables-restore; partial ones are also counted apart, as in kube-proxy. */
  public void iptablesRestoreFailed(IpFamily family, boolean partial) {
    iptablesRestoreFailures.labelValues(label(family)).inc();
    if (partial) {
      iptablesPartialRestoreFailures.labelValues(label(family)).inc();
    }
  }

  /** Rules owned and rules written in the last restore, per table. */
  public void iptablesRules(
      IpFamily family, Map<String, Integer> owned, Map<String, Integer> last) {
    owned.forEach((table, count) -> iptablesRules.set(count, table, label(family)));
    last.forEach((table, count) -> iptablesLastRules.labelValues(table, label(family)).set(count));
  }

  /** The sysctls left as the node has them, each {@code name=wanted value}. */
  public void sysctlsUntuned(List<String> settings) {
    for (var setting : settings) {
      int equals = setting.indexOf('=');
      sysctlUntuned.labelValues(equals < 0 ? setting : setting.substring(0, equals)).set(1);
    }
  }

  public void iptablesBackend(String backend) {
    iptablesBackend.labelValues(backend).set(1);
  }

  public void noLocalEndpoints(IpFamily family, int internal, int external) {
    noLocalEndpoints.set(internal, "internal", label(family));
    noLocalEndpoints.set(external, "external", label(family));
  }

  public void healthz(int code) {
    healthz.labelValues(String.valueOf(code)).inc();
  }

  public void livez(int code) {
    livez.labelValues(String.valueOf(code)).inc();
  }

  /** Replaces the per-level and per-reason counts of one family with this sync's. */
  public void topology(
      IpFamily family, Map<String, Integer> byLevel, Map<String, Integer> fallbacksByReason) {
    byLevel.forEach(
        (level, count) -> servicePortsByTopology.labelValues(level, label(family)).set(count));
    fallbacksByReason.forEach(
        (reason, count) -> topologyFallbacks.labelValues(reason, label(family)).set(count));
  }

  public void conntrackReconciled(IpFamily family, Duration elapsed, int deleted) {
    conntrackDuration.labelValues(label(family)).observe(elapsed.toNanos() / 1e9);
    conntrackDeleted.labelValues(label(family)).inc(deleted);
  }

  public void healthCheckBindFailed() {
    healthCheckBindFailures.inc();
  }

  /** How many Service ports lost an address key to another in this family's latest sync. */
  public void addressCollisions(IpFamily family, int count) {
    addressCollisions.labelValues(label(family)).set(count);
  }

  /** The plan's warnings now, per reason (a fixed vocabulary: see {@code PlanWarnings}). */
  public void planWarnings(IpFamily family, Map<String, Integer> byReason) {
    byReason.forEach((reason, count) -> planWarnings.labelValues(reason, label(family)).set(count));
  }

  /** How many Service ports the series cap leaves out of per-Service locality counting. */
  public void observedServicePortsDropped(IpFamily family, int count) {
    observedPortsDropped.labelValues(label(family)).set(count);
  }

  /** How many unused chains and sets this family's table still holds, emptied, to be deleted. */
  public void nftablesStale(IpFamily family, int count) {
    if (nftablesStale != null) {
      nftablesStale.labelValues(label(family)).set(count);
    }
  }

  public void nodePortsServedNowhere(IpFamily family, boolean nowhere) {
    nodePortsServedNowhere.labelValues(label(family)).set(nowhere ? 1 : 0);
  }

  public void localDetectionDegraded(IpFamily family, boolean degraded) {
    localDetectionDegraded.labelValues(label(family)).set(degraded ? 1 : 0);
  }
}
