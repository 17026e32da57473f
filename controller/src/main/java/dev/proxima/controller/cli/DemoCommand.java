package dev.proxima.controller.cli;

import dev.proxima.cli.DurationConverter;
import dev.proxima.controller.demo.EmbeddedApiServer;
import dev.proxima.controller.demo.ExampleCluster;
import dev.proxima.model.state.ClusterState;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Proxima on its embedded default: an in-process API server seeded with an example cluster, the
 * real controller against it, and a report of the hints it wrote. Exits by itself.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Run the controller against an embedded API server with an example cluster.")
public final class DemoCommand implements Callable<Integer> {
  @Option(
      names = "--timeout",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "Give up when the hints have not converged by then (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    ClusterState cluster = ExampleCluster.load();
    try (var apiServer = EmbeddedApiServer.start();
        var client = apiServer.client()) {
      out.printf("Embedded API server at %s%n", apiServer.url());
      ExampleCluster.seed(client, cluster);
      out.printf(
          "Seeded %d nodes, %d services, %d endpoint slices (namespace demo)%n",
          cluster.nodes().size(), cluster.services().size(), cluster.endpointSlices().size());
      out.flush();
      if (!ExampleCluster.runController(client, timeout)) {
        spec.commandLine().getErr().println("error: hints did not converge within " + timeout);
        return 1;
      }
      ExampleCluster.report(client, out);
    }
    return 0;
  }
}
