package dev.proxima.controller.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.cli.LogFormat;
import dev.proxima.cli.StateSource;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.plan.OfflinePlan;
import dev.proxima.model.state.StateFileException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Shows, without a cluster, what the controller would do to the objects of a state file. */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Print every EndpointSlice of a state file (or of a live cluster, read-only) as the controller would leave it, and its Events.",
      "FILE holds Services, EndpointSlices and Nodes as `kubectl get services,endpointslices,nodes -A -o yaml` prints them.",
      "--diff prints only the slices whose hints would change, with the hints before and after."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:planned",
      "1:the cluster of --kubeconfig could not be listed",
      "2:the state file, the kubeconfig or the options are invalid"
    })
public final class PlanCommand implements Callable<Integer> {
  /** How plan prints its result. */
  public enum Output {
    yaml,
    json
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  StateSource source;

  @Option(
      names = "--diff",
      description =
          "Print only the EndpointSlices whose hints would change, each endpoint's hints before -> after, then the Events (text; -o is ignored).")
  boolean diff;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "yaml",
      description = "yaml or json (default: ${DEFAULT-VALUE}).")
  Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    LogFormat.warningsOnly();
    try {
      var state = source.load();
      // Taken before planning: the diff must not depend on whether planning copies the slices.
      var before = HintDiff.snapshot(state.endpointSlices());
      var result = OfflinePlan.run(state);
      result.notes().forEach(note -> err.println("note: " + note));
      if (diff) {
        out.print(HintDiff.text(before, result.endpointSlices(), diffEvents(result.events())));
        out.flush();
      } else {
        print(result, out);
      }
      return 0;
    } catch (StateFileException | KubeconfigException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
    } catch (LiveClusterState.UnreachableException unreachable) {
      err.println("error: " + unreachable.getMessage());
      return 1;
    }
  }

  private void print(OfflinePlan.Result result, PrintWriter out) {
    var document = new LinkedHashMap<String, Object>();
    document.put("endpointSlices", result.endpointSlices());
    document.put("events", events(result.events()));
    var serialization = new KubernetesSerialization();
    out.print(
        output == Output.json
            ? serialization.asJson(document) + "\n"
            : serialization.asYaml(document));
    out.flush();
  }

  private static List<String> diffEvents(List<PlannedEvent> events) {
    return events.stream()
        .map(
            event ->
                event.type().name()
                    + " "
                    + event.object()
                    + " "
                    + event.reason()
                    + ": "
                    + event.message())
        .toList();
  }

  private static List<Map<String, String>> events(List<PlannedEvent> events) {
    return events.stream()
        .map(
            event -> {
              var map = new LinkedHashMap<String, String>();
              map.put("object", event.object().toString());
              map.put("type", event.type().name());
              map.put("reason", event.reason());
              map.put("message", event.message());
              return (Map<String, String>) map;
            })
        .toList();
  }
}
