package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A scratch namespace playing one node, connected to the harness namespace, where the packaged
 * proxy runs for real: it watches the mock API server and loads its rules into this namespace.
 */
final class ProxyNode implements AutoCloseable {
  static final String METRICS_PORT = "10249";

  final String namespace;
  final String nodeAddress;
  private final Namespaces namespaces;
  private final ApiServer api;
  private final Path work;
  private final Path jar;
  private final String kubeconfig;
  private JarProcess proxy;
  private final String mode;
  private int starts;
  private double firstSyncedAt;
  private double cpuAtFirstSync;
  private java.util.Map<String, String> environment = java.util.Map.of();
  private List<String> proxyArguments = List.of();

  ProxyNode(Namespaces namespaces, String suffix, ApiServer api, Path work, Path jar)
      throws IOException {
    this(namespaces, suffix, api, work, jar, "nftables");
  }

  ProxyNode(Namespaces namespaces, String suffix, ApiServer api, Path work, Path jar, String mode)
      throws IOException {
    this.mode = mode;
    this.namespaces = namespaces;
    this.api = api;
    this.work = work;
    this.jar = jar;
    this.namespace = namespaces.create(suffix);
    var addresses = namespaces.connect(null, namespace);
    this.nodeAddress = addresses[1];
    this.kubeconfig = api.kubeconfig(work, addresses[0]).toString();
  }

  /** Runs the proxy with every nft run timed by {@code timer} from its next start on. */
  ProxyNode timing(NftTimer timer) {
    environment = timer.environment();
    return this;
  }

  /** Runs the proxy with these extra {@code run} flags from its next start on. */
  ProxyNode arguments(List<String> extra) {
    proxyArguments = List.copyOf(extra);
    return this;
  }

  /** Starts the proxy (with extra JVM flags) and waits until both families' first sync is done. */
  JarProcess startAndAwaitSync(List<String> extraJvmFlags) {
    var arguments =
        new java.util.ArrayList<>(
            List.of(
                "run",
                "--node-name=" + SyntheticCluster.PROXY_NODE,
                "--kubeconfig=" + kubeconfig,
                "--metrics-bind-address=" + nodeAddress + ":" + METRICS_PORT,
                "--healthz-bind-address=" + nodeAddress + ":10256",
                "--log-format=json",
                "--mode=" + mode));
    arguments.addAll(proxyArguments);
    var log = work.resolve(namespace + "-proxy-" + ++starts + ".log");
    proxy =
        JarProcess.start(
            namespace,
            jar,
            extraJvmFlags,
            arguments,
            log,
            "http://" + nodeAddress + ":" + METRICS_PORT + "/metrics",
            environment);
    // From the proxy's log, not its /metrics: in nftables mode every scrape makes the proxy run
    // an nft counter read for both families (its connection-locality series), and scraping every
    // few milliseconds while it starts took CPU from the start being measured.
    proxy.await(
        "proxy first sync in " + namespace, Duration.ofMinutes(10), () -> loggedSyncAt() > 0);
    firstSyncedAt = loggedSyncAt();
    cpuAtFirstSync = proxy.cpuMillis();
    Progress.log(
        "proxy in "
            + namespace
            + " synced "
            + Row.ms(firstSyncedAt - proxy.startedMillis)
            + " after its start");
    awaitQuiet();
    return proxy;
  }

  /**
   * CPU milliseconds the proxy had used when the harness saw its first sync (polled every few
   * milliseconds, so a little of what follows the sync may be in it).
   */
  double cpuAtFirstSync() {
    return cpuAtFirstSync;
  }

  /** Epoch millis when both families had finished their first sync after the latest start. */
  double firstSyncedAt() {
    return firstSyncedAt;
  }

  /**
   * Waits until the proxy has digested the watch's replay: a new watch on the mock API server sends
   * every object again, and a change written meanwhile would queue behind thousands of events.
   * Quiet means the change counters stood still for two seconds.
   */
  void awaitQuiet() {
    double[] last = {-1};
    long[] stableSince = {System.currentTimeMillis()};
    proxy.await(
        "proxy settles after its first sync in " + namespace,
        Duration.ofMinutes(5),
        () -> {
          double now = changeEvents();
          long at = System.currentTimeMillis();
          if (now != last[0]) {
            last[0] = now;
            stableSince[0] = at;
            JarProcess.pause(250);
            return false;
          }
          JarProcess.pause(250);
          return at - stableSince[0] >= 3000;
        });
  }

  private static final String FULL_SYNC_DURATION =
      "kubeproxy_sync_full_proxy_rules_duration_seconds";

  private double changeEvents() {
    var metrics =
        proxy.metrics(
            "kubeproxy_sync_proxy_rules_endpoint_changes",
            "kubeproxy_sync_proxy_rules_service_changes");
    return JarProcess.sample(metrics, "kubeproxy_sync_proxy_rules_endpoint_changes_total")
            .orElse(-1)
        + JarProcess.sample(metrics, "kubeproxy_sync_proxy_rules_service_changes_total").orElse(-1);
  }

  /** Full syncs of the IPv4 family so far. */
  double fullSyncs() {
    return JarProcess.sample(
            proxy.metrics(FULL_SYNC_DURATION), FULL_SYNC_DURATION + "_count{ip_family=\"IPv4\"}")
        .orElse(-1);
  }

  /** The proxy's sync counters and timestamps, for a harness error that needs explaining. */
  String diagnostics() {
    return proxy
            .metrics()
            .lines()
            .filter(l -> l.startsWith("kubeproxy_sync_proxy_rules_") && !l.contains("_bucket"))
            .collect(java.util.stream.Collectors.joining("\n"))
        + "\n"
        + proxy.tail();
  }

  /** Epoch millis of the first sync both families have logged since the latest start, or 0. */
  private double loggedSyncAt() {
    var v4 = proxy.loggedAt("Synced proxy rules", "\"family\":\"IPv4\"");
    var v6 = proxy.loggedAt("Synced proxy rules", "\"family\":\"IPv6\"");
    if (v4.isEmpty() || v6.isEmpty()) {
      JarProcess.pause(20);
      return 0;
    }
    return Math.max(v4.getAsDouble(), v6.getAsDouble());
  }

  /** Epoch millis of the latest sync finished by both families, or 0 before the first. */
  double lastSyncAt() {
    var metrics = proxy.metrics("kubeproxy_sync_proxy_rules_last_timestamp_seconds");
    var v4 =
        JarProcess.sample(
            metrics, "kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"}");
    var v6 =
        JarProcess.sample(
            metrics, "kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv6\"}");
    if (v4.isEmpty() || v6.isEmpty() || v4.getAsDouble() <= 0 || v6.getAsDouble() <= 0) {
      return 0;
    }
    return Math.max(v4.getAsDouble(), v6.getAsDouble()) * 1000;
  }

  /**
   * Milliseconds of each family's first sync after the latest start, summed over both families, as
   * its log line gives them.
   */
  double firstSyncMillis() {
    double total = 0;
    for (var family : List.of("IPv4", "IPv6")) {
      var first =
          proxy.loggedLines("Synced proxy rules", "\"family\":\"" + family + "\"").stream()
              .findFirst();
      total += first.map(ProxyNode::elapsedMs).orElse(0.0);
    }
    return total;
  }

  private static double elapsedMs(String line) {
    var match = java.util.regex.Pattern.compile("\"elapsedMs\":\\s*(\\d+)").matcher(line);
    return match.find() ? Double.parseDouble(match.group(1)) : 0;
  }

  /** Seconds spent in full syncs so far, both families: planning, rendering and nft. */
  double fullSyncSeconds() {
    var metrics = proxy.metrics(FULL_SYNC_DURATION);
    double total = 0;
    for (var family : List.of("IPv4", "IPv6")) {
      total +=
          JarProcess.sample(
                  metrics,
                  "kubeproxy_sync_full_proxy_rules_duration_seconds_sum{ip_family=\""
                      + family
                      + "\"}")
              .orElse(0);
    }
    return total;
  }

  JarProcess proxy() {
    return proxy;
  }

  void stopProxy() {
    if (proxy != null) {
      proxy.stop();
    }
  }

  /**
   * Stops the proxy and leaves the node as a new one, no table in the kernel, so the next start is
   * cold again.
   */
  void forgetRules() throws IOException {
    stopProxy();
    for (var family : List.of("ip", "ip6")) {
      // Absent when that family never loaded; a refusal then is fine.
      Sh.run(Sh.in(namespace, "nft", "delete", "table", family, "proxima"), "");
    }
  }

  @Override
  public void close() {
    stopProxy();
    namespaces.delete(namespace);
  }
}
