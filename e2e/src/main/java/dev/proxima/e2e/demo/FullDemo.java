package dev.proxima.e2e.demo;

import dev.proxima.controller.runtime.HintController;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Proxima on its embedded default, both components: an in-process API server with the example
 * cluster, the real controller writing hints, then one real proxy per node in dry-run, each
 * printing which endpoints it uses and why and writing the ruleset it would load to a file. With
 * {@code --serve} everything keeps running for kubectl until the process is stopped.
 */
@Command(
    name = "demo.sh",
    mixinStandardHelpOptions = true,
    description =
        "Runs the controller and one dry-run proxy per node against an embedded API server"
            + " seeded with an example cluster.")
public final class FullDemo implements Callable<Integer> {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Option(
      names = "--serve",
      description =
          "Keep running until Ctrl-C, with a kubeconfig for kubectl in the output directory.")
  boolean serve;

  @Parameters(
      arity = "0..1",
      paramLabel = "DIR",
      defaultValue = "proxima-demo-out",
      description = "Where the rulesets (and the kubeconfig) go (default: ${DEFAULT-VALUE}).")
  Path outputDirectory;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new FullDemo()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    var cluster = ExampleCluster.load();
    Files.createDirectories(outputDirectory);
    var apiServer = EmbeddedApiServer.start();
    var client = apiServer.client();
    HintController controller = null;
    var proxies = new ArrayList<DemoProxy>();
    boolean handedOver = false;
    try {
      out.printf("Embedded API server at %s%n", apiServer.url());
      ExampleCluster.seed(client, cluster);
      out.printf(
          "Seeded %d nodes, %d services, %d endpoint slices (namespace demo)%n%n== Controller ==%n",
          cluster.nodes().size(), cluster.services().size(), cluster.endpointSlices().size());
      controller = ExampleCluster.startController(client);
      if (!ExampleCluster.awaitConverged(client, TIMEOUT)) {
        out.println("error: hints did not converge within " + TIMEOUT);
        return 1;
      }
      ExampleCluster.report(client, out);
      // All proxies run side by side, as on a cluster; the embedded server also handles closing
      // watches poorly, so they stop together at the end rather than one after another.
      for (var node : cluster.nodes()) {
        proxies.add(DemoProxy.start(apiServer, node.getMetadata().getName(), outputDirectory));
      }
      for (var proxy : proxies) {
        out.printf("%n== Proxy on %s (dry-run) ==%n", proxy.node());
        if (!proxy.awaitSynced(TIMEOUT)) {
          out.println("error: the proxy on " + proxy.node() + " did not sync within " + TIMEOUT);
          return 1;
        }
        out.print(proxy.explain());
        var rulesFile = proxy.writeRuleset();
        out.printf(
            "Rendered ruleset written to %s (load it with: nft -f %s)%n", rulesFile, rulesFile);
      }
      out.flush();
      if (!serve) {
        return 0;
      }
      handedOver = true;
      serveUntilStopped(new Running(apiServer, client, controller, proxies), out);
      return 0;
    } finally {
      if (!handedOver) {
        new Running(apiServer, client, controller, proxies).close();
      }
    }
  }

  /** Everything the demo started; closed together. */
  private record Running(
      EmbeddedApiServer apiServer,
      io.fabric8.kubernetes.client.KubernetesClient client,
      HintController controller,
      List<DemoProxy> proxies)
      implements AutoCloseable {
    @Override
    public void close() {
      proxies.forEach(DemoProxy::close);
      if (controller != null) {
        controller.close();
      }
      client.close();
      apiServer.close();
    }
  }

  private void serveUntilStopped(Running running, PrintWriter out) throws Exception {
    var kubeconfig = outputDirectory.resolve("kubeconfig");
    running.apiServer().writeKubeconfig(kubeconfig);
    var hintWatch = HintChanges.watch(running.client(), out);
    for (var proxy : running.proxies()) {
      proxy.reportChanges(out);
    }
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("\nStopping the demo...");
                  out.flush();
                  hintWatch.close();
                  running.close();
                  stopped.countDown();
                },
                "demo-shutdown"));
    out.print(ServeHelp.text(kubeconfig, outputDirectory));
    out.flush();
    stopped.await();
  }
}
