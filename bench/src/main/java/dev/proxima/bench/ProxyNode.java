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
  private int starts;

  ProxyNode(Namespaces namespaces, String suffix, ApiServer api, Path work, Path jar)
      throws IOException {
    this.namespaces = namespaces;
    this.api = api;
    this.work = work;
    this.jar = jar;
    this.namespace = namespaces.create(suffix);
    var addresses = namespaces.connect(null, namespace);
    this.nodeAddress = addresses[1];
    this.kubeconfig = api.kubeconfig(work, addresses[0]).toString();
  }

  /** Starts the proxy and waits until both families' first sync is done. */
  JarProcess startAndAwaitSync(List<String> extraArguments) {
    var arguments =
        new java.util.ArrayList<>(
            List.of(
                "run",
                "--node-name=" + SyntheticCluster.PROXY_NODE,
                "--kubeconfig=" + kubeconfig,
                "--metrics-bind-address=" + nodeAddress + ":" + METRICS_PORT,
                "--healthz-bind-address=" + nodeAddress + ":10256",
                "--log-format=json"));
    arguments.addAll(extraArguments);
    var log = work.resolve(namespace + "-proxy-" + ++starts + ".log");
    proxy =
        JarProcess.start(
            namespace,
            jar,
            arguments,
            log,
            "http://" + nodeAddress + ":" + METRICS_PORT + "/metrics");
    proxy.await("proxy first sync in " + namespace, Duration.ofMinutes(5), () -> syncedAt() > 0);
    return proxy;
  }

  /** Epoch millis when both families had synced at least once, or 0. */
  double syncedAt() {
    var metrics = proxy.metrics();
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

  /** Seconds spent in full syncs so far, both families: planning, rendering and nft. */
  double fullSyncSeconds() {
    var metrics = proxy.metrics();
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

  @Override
  public void close() {
    stopProxy();
    namespaces.delete(namespace);
  }
}
