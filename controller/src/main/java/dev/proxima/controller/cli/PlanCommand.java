package dev.proxima.controller.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.cli.LogFormat;
import dev.proxima.cli.StateSource;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.ServerVersion;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.plan.OfflinePlan;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.state.StateFileException;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
      "--diff prints only the slices whose hints would change, with the hints before and after.",
      "Both print the proxima.dev/TrafficDistribution* conditions each Service would carry."
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

  @Option(
      names = "--slices",
      defaultValue = "auto",
      description =
          "all, unmanaged or auto, as the controller's --slices (default: ${DEFAULT-VALUE}). auto"
              + " needs --server-version; without it plan treats auto as all and says so.")
  String slices;

  @Option(
      names = "--server-version",
      paramLabel = "MAJOR.MINOR",
      description = "The API server version --slices=auto decides by (kubectl version), e.g. 1.33.")
  String serverVersion;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    LogFormat.warningsOnly();
    var scope = scope(err);
    if (scope.isEmpty()) {
      return 2;
    }
    try {
      var state = source.load(false);
      // Taken before planning: the diff must not depend on whether planning copies the slices.
      var before = HintDiff.snapshot(state.endpointSlices());
      var result = OfflinePlan.run(state, scope.get(), Clock.systemUTC());
      if (serverVersion == null && "auto".equalsIgnoreCase(slices)) {
        err.println(
            "note: --slices=auto without --server-version plans as --slices=all (Proxima writes"
                + " every slice)");
      }
      result.notes().forEach(note -> err.println("note: " + note));
      if (diff) {
        out.print(HintDiff.text(before, result.endpointSlices(), diffEvents(result.events())));
        out.print(conditionsText(result.conditions()));
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

  /** The slice scope from --slices and --server-version; empty (after an error) when invalid. */
  private Optional<SliceScope> scope(PrintWriter err) {
    SliceScope.Slices mode;
    try {
      mode = SliceScope.Slices.valueOf(slices.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException unknown) {
      err.println("error: --slices must be all, unmanaged or auto, not " + slices);
      return Optional.empty();
    }
    var version = ServerVersion.parse(serverVersion);
    if (serverVersion != null && version.isEmpty()) {
      err.println("error: --server-version must look like 1.33, not " + serverVersion);
      return Optional.empty();
    }
    if (mode == SliceScope.Slices.AUTO && version.isEmpty()) {
      return Optional.of(SliceScope.ALL);
    }
    return Optional.of(new SliceScope(mode, version));
  }

  /** The conditions in the diff's text form: one line per condition, under its Service. */
  private static String conditionsText(Map<ObjectKey, List<Condition>> conditions) {
    var text = new StringBuilder();
    conditions.forEach(
        (service, list) -> {
          text.append("Service ").append(service).append(" conditions:\n");
          list.forEach(
              condition ->
                  text.append("  ")
                      .append(condition.getType())
                      .append('=')
                      .append(condition.getStatus())
                      .append(' ')
                      .append(condition.getReason())
                      .append(": ")
                      .append(condition.getMessage())
                      .append('\n'));
        });
    return text.toString();
  }

  private void print(OfflinePlan.Result result, PrintWriter out) {
    var document = new LinkedHashMap<String, Object>();
    document.put("endpointSlices", result.endpointSlices());
    document.put("events", events(result.events()));
    document.put("serviceConditions", serviceConditions(result.conditions()));
    var serialization = new KubernetesSerialization();
    out.print(
        output == Output.json
            ? serialization.asJson(document) + "\n"
            : serialization.asYaml(document));
    out.flush();
  }

  private static List<Map<String, Object>> serviceConditions(
      Map<ObjectKey, List<Condition>> conditions) {
    return conditions.entrySet().stream()
        .map(
            entry -> {
              var map = new LinkedHashMap<String, Object>();
              map.put("service", entry.getKey().toString());
              map.put("conditions", entry.getValue());
              return (Map<String, Object>) map;
            })
        .toList();
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
