package dev.proxima.controller.cli;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.Kubeconfigs;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.cli.LogFormat;
import dev.proxima.cli.StateSource;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.hints.ServerVersion;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.plan.OfflinePlan;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFileException;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
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
    json,
    /**
     * One YAML List of the Services, the slices as the controller leaves them and the Nodes: a
     * state file for {@code proxima-proxy explain --state -}.
     */
    list
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
      description =
          "yaml, json, or list: the state after the controller ran, as one List of Services,"
              + " EndpointSlices and Nodes, for `proxima-proxy explain --state - --node NAME`"
              + " (default: ${DEFAULT-VALUE}).")
  Output output;

  @Option(
      names = "--slices",
      defaultValue = "auto",
      description =
          "all, unmanaged or auto, as the controller's --slices (default: ${DEFAULT-VALUE}). auto"
              + " decides by the API server's version: --server-version, else (with"
              + " --kubeconfig) the cluster's /version as `run` reads it; from a state file"
              + " without --server-version plan treats auto as all and says so.")
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
    try {
      var scope = scope(err);
      if (scope.isEmpty()) {
        return 2;
      }
      var state = source.load(false);
      if (needsClusterVersion(scope.get())) {
        scope = Optional.of(new SliceScope(SliceScope.Slices.AUTO, clusterVersion(err)));
      }
      // Taken before planning: the diff must not depend on whether planning copies the slices.
      var before = HintDiff.snapshot(state.endpointSlices());
      var result = OfflinePlan.run(state, scope.get(), Clock.systemUTC());
      if (scope.get().slices() == SliceScope.Slices.AUTO && serverVersion == null) {
        err.println(
            "note: --slices=auto decided by the cluster's /version: "
                + scope.get().serverVersion().map(Object::toString).orElse("unknown"));
      } else if ("auto".equalsIgnoreCase(slices)) {
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
        print(result, state, out);
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

  /**
   * The slice scope from --slices and --server-version; empty (after an error) when invalid. With
   * --kubeconfig, auto without --server-version is decided after the listing, by the cluster's
   * /version.
   */
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
    if (mode == SliceScope.Slices.AUTO && version.isEmpty() && source.kubeconfig() == null) {
      return Optional.of(SliceScope.ALL);
    }
    return Optional.of(new SliceScope(mode, version));
  }

  private boolean needsClusterVersion(SliceScope scope) {
    return scope.slices() == SliceScope.Slices.AUTO
        && serverVersion == null
        && source.kubeconfig() != null;
  }

  /**
   * The cluster's version from /version, as {@code run} reads it; empty when it cannot be read or
   * carries no number (then, as in {@code run}, auto leaves kube-controller-manager only what every
   * release of it hints itself).
   */
  private Optional<ServerVersion> clusterVersion(PrintWriter err) throws KubeconfigException {
    var config = Kubeconfigs.fromFile(source.kubeconfig());
    try (var client = new KubernetesClientBuilder().withConfig(config).build()) {
      var info = client.getKubernetesVersion();
      var version =
          info == null
              ? Optional.<ServerVersion>empty()
              : ServerVersion.parse(info.getMajor(), info.getMinor());
      if (version.isEmpty()) {
        err.println("note: the API server's /version names no version; planning as run does then");
      }
      return version;
    } catch (KubernetesClientException unreadable) {
      err.println(
          "note: cannot read the API server's /version ("
              + ApiServerFailures.cause(unreadable)
              + "); planning as run does then (give --server-version to decide --slices=auto)");
      return Optional.empty();
    }
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

  private void print(OfflinePlan.Result result, ClusterState state, PrintWriter out) {
    var serialization = new KubernetesSerialization();
    if (output == Output.list) {
      var items = new ArrayList<HasMetadata>(state.services());
      items.addAll(result.endpointSlices());
      items.addAll(state.nodes());
      items.addAll(state.serviceCidrs());
      out.print(serialization.asYaml(new KubernetesListBuilder().withItems(items).build()));
      out.flush();
      return;
    }
    var document = new LinkedHashMap<String, Object>();
    document.put("endpointSlices", result.endpointSlices());
    document.put("events", events(result.events()));
    document.put("serviceConditions", serviceConditions(result.conditions()));
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
