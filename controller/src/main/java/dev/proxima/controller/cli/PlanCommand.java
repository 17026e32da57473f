package dev.proxima.controller.cli;

import dev.proxima.cli.LogFormat;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.plan.OfflinePlan;
import dev.proxima.model.state.StateFile;
import dev.proxima.model.state.StateFileException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Shows, without a cluster, what the controller would do to the objects of a state file. */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Print every EndpointSlice of a state file as the controller would leave it, and its Events.",
      "FILE holds Services, EndpointSlices and Nodes as `kubectl get -o yaml` prints them."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:planned", "2:the state file or the options are invalid"})
public final class PlanCommand implements Callable<Integer> {
  /** How plan prints its result. */
  public enum Output {
    yaml,
    json
  }

  @Option(names = "--state", required = true, paramLabel = "FILE", description = "The state file.")
  Path state;

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
      var result = OfflinePlan.run(StateFile.load(state));
      result.notes().forEach(note -> err.println("note: " + note));
      print(result, out);
      return 0;
    } catch (StateFileException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
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
