package dev.proxima.e2e.demo;

import dev.proxima.controller.demo.EmbeddedApiServer;
import dev.proxima.controller.demo.ExampleCluster;
import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.ProxyServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
      for (var node : cluster.nodes()) {
        var name = node.getMetadata().getName();
        out.printf("%n== Proxy on %s (dry-run) ==%n", name);
        if (!runProxy(apiServer, name, out, outputDirectory.resolve(name + ".nft"))) {
          return 1;
        }
      }
    }
    return 0;
  }

  private static boolean runProxy(
      EmbeddedApiServer apiServer, String node, PrintWriter out, Path rulesFile) throws Exception {
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
    try (var client = apiServer.client();
        var proxy =
            new ProxyServer(
                client,
                config,
                null,
                scripts::add,
                new PrometheusRegistry(),
                Duration.ZERO,
                Clock.systemUTC())) {
      proxy.start(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", 0));
      var deadline = Instant.now().plus(TIMEOUT);
      while (proxy.plans().isEmpty() || scripts.isEmpty()) {
        if (Instant.now().isAfter(deadline)) {
          out.println("error: the proxy on " + node + " did not sync within " + TIMEOUT);
          return false;
        }
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      out.print(ExplainReport.text(proxy.plans()));
      Files.writeString(rulesFile, String.join("", scripts));
      out.printf(
          "Rendered ruleset written to %s (load it with: nft -f %s)%n", rulesFile, rulesFile);
      return true;
    }
  }
}
