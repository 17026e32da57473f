package dev.proxima.e2e.demo;

import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.ProxyServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * Proxima on its embedded default, both components: an in-process API server with the example
 * cluster, the real controller writing hints, then one real proxy per node in dry-run, each
 * printing which endpoints it uses and why and writing the ruleset it would load to a file.
 */
public final class FullDemo {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private FullDemo() {}

  public static void main(String[] args) throws Exception {
    var out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    var outputDirectory = Path.of(args.length > 0 ? args[0] : "proxima-demo-out");
    System.exit(run(out, outputDirectory));
  }

  static int run(PrintWriter out, Path outputDirectory) throws Exception {
    var cluster = ExampleCluster.load();
    Files.createDirectories(outputDirectory);
    try (var apiServer = EmbeddedApiServer.start();
        var client = apiServer.client()) {
      out.printf("Embedded API server at %s%n", apiServer.url());
      ExampleCluster.seed(client, cluster);
      out.printf(
          "Seeded %d nodes, %d services, %d endpoint slices (namespace demo)%n%n== Controller ==%n",
          cluster.nodes().size(), cluster.services().size(), cluster.endpointSlices().size());
      if (!ExampleCluster.runController(client, TIMEOUT)) {
        out.println("error: hints did not converge within " + TIMEOUT);
        return 1;
      }
      ExampleCluster.report(client, out);
      // All proxies run side by side, as on a cluster; the embedded server also handles closing
      // watches poorly, so they stop together at the end rather than one after another.
      var proxies = new ArrayList<RunningProxy>();
      try {
        for (var node : cluster.nodes()) {
          proxies.add(RunningProxy.start(apiServer, node.getMetadata().getName()));
        }
        for (var proxy : proxies) {
          out.printf("%n== Proxy on %s (dry-run) ==%n", proxy.node());
          if (!proxy.awaitSynced(TIMEOUT)) {
            out.println("error: the proxy on " + proxy.node() + " did not sync within " + TIMEOUT);
            return 1;
          }
          out.print(ExplainReport.text(proxy.server().plans()));
          var rulesFile = outputDirectory.resolve(proxy.node() + ".nft");
          Files.writeString(rulesFile, String.join("", proxy.scripts()));
          out.printf(
              "Rendered ruleset written to %s (load it with: nft -f %s)%n", rulesFile, rulesFile);
        }
      } finally {
        proxies.forEach(RunningProxy::close);
      }
    }
    return 0;
  }

  /** One node's proxy in dry-run, with its own API client, collecting what it would load. */
  private record RunningProxy(
      String node, KubernetesClient client, ProxyServer server, List<String> scripts)
      implements AutoCloseable {
    static RunningProxy start(EmbeddedApiServer apiServer, String node) throws java.io.IOException {
      List<String> scripts = new CopyOnWriteArrayList<>();
      var config =
          new ProxyConfig(
              node,
              new RuleSettings(List.of("10.244.0.0/16"), false, 14, List.of()),
              Duration.ofMillis(100),
              Duration.ofSeconds(30),
              Duration.ofHours(1),
              null,
              true);
      var client = apiServer.client();
      var server =
          new ProxyServer(
              client,
              config,
              null,
              scripts::add,
              new PrometheusRegistry(),
              Duration.ZERO,
              Clock.systemUTC());
      server.start(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", 0));
      return new RunningProxy(node, client, server, scripts);
    }

    boolean awaitSynced(Duration timeout) {
      var deadline = Instant.now().plus(timeout);
      while (server.plans().isEmpty() || scripts.isEmpty()) {
        if (Instant.now().isAfter(deadline)) {
          return false;
        }
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      return true;
    }

    @Override
    public void close() {
      server.close();
      client.close();
    }
  }
}
