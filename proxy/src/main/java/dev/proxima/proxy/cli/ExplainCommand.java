package dev.proxima.proxy.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.TopologyFallback;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Print, per Service port, the addresses that lead to it and, for each kind of traffic"
          + " (pods and the node to the ClusterIP, external clients to a NodePort, load-balancer"
          + " IP or externalIP), the endpoints this node's proxy sends it to, or that it drops"
          + " it, and why.",
      "To see routing as it will be once the controller has written its hints: proxima-controller"
          + " plan --state FILE -o list | proxima-proxy explain --state - --node NAME",
      "With --live, ask the proxy running on this node instead: what its latest sync loaded, and"
          + " how its syncs went (inside its pod: kubectl exec -n proxima-system POD --"
          + " proxima-proxy explain --live)."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:explained",
      "1:the cluster of --kubeconfig could not be listed, or (--live) no proxy answered",
      "2:the state file, the kubeconfig, the node or the options are invalid"
    })
public final class ExplainCommand implements Callable<Integer> {
  public static final int DEFAULT_PORT = 10358;

  public enum Output {
    text,
    json
  }

  static final class Source {
    @ArgGroup(exclusive = false, multiplicity = "1")
    StateOptions offline;

    @ArgGroup(exclusive = false, multiplicity = "1")
    LiveExplainOptions live;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Mixin ServiceProxyNameOption serviceProxyName;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    return source.live != null ? live(source.live) : offline(source.offline);
  }

  private Integer offline(StateOptions state) {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    var notes = new ArrayList<String>();
    try {
      var plans = state.plans(notes, serviceProxyName.value);
      notes.forEach(note -> err.println("note: " + note));
      var missingSlices = state.missingSlicesWarning();
      long waiting = waitingForHints(plans);
      if (missingSlices != null) {
        err.println("warning: " + missingSlices);
      } else if (waiting > 0) {
        err.println(
            "note: "
                + (waiting == 1 ? "1 Service port asks" : waiting + " Service ports ask")
                + " for a trafficDistribution whose hints are not in the slices yet; to see"
                + " routing as it will be once the controller has written them: "
                + "proxima-controller plan "
                + (state.source.kubeconfig() != null
                    ? "--kubeconfig " + state.source.kubeconfig()
                    : "--state " + state.source.statePath())
                + " -o list | proxima-proxy explain --state - --node "
                + state.node);
      }
      out.print(output == Output.json ? ExplainReport.json(plans) : ExplainReport.text(plans));
      out.flush();
      return 0;
    } catch (StateFileException
        | KubeconfigException
        | LiveClusterState.UnreachableException failure) {
      err.println("error: " + failure.getMessage());
      return failure instanceof LiveClusterState.UnreachableException ? 1 : 2;
    }
  }

  /** Routed wider than asked because their slices lack the hints. */
  private static long waitingForHints(List<NodePlanner.FamilyPlan> plans) {
    return plans.stream()
        .flatMap(plan -> plan.ports().stream())
        .filter(
            planned ->
                planned.fallback() == TopologyFallback.INCOMPLETE_ZONE_HINTS
                    || planned.fallback() == TopologyFallback.INCOMPLETE_NODE_HINTS)
        .count();
  }

  private Integer live(LiveExplainOptions live) {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    if (spec.commandLine().getParseResult().hasMatchedOption("--service-proxy-name")) {
      err.println(
          "error: --service-proxy-name is for the offline explain; --live shows the Services the"
              + " running proxy takes");
      return 2;
    }
    try {
      var address = live.address(System.getenv("PROXIMA_EXPLAIN_BIND_ADDRESS"));
      out.print(LiveExplainClient.fetch(address, live.serviceKey(), output.name()));
      out.flush();
      return 0;
    } catch (IllegalArgumentException | LiveExplainClient.Failure failure) {
      err.println("error: " + failure.getMessage());
      return failure instanceof LiveExplainClient.Failure answered ? answered.exitCode() : 2;
    }
  }
}
