package dev.proxima.proxy.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.plan.ExplainReport;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Answers "which endpoints does this node use for each Service, and why?" from a state file. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Print, per Service port, the endpoints this node's proxy would use and why.",
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:explained",
      "1:the cluster of --kubeconfig could not be listed",
      "2:the state file, the kubeconfig, the node or the options are invalid"
    })
public final class ExplainCommand implements Callable<Integer> {
  /** Output formats. */
  public enum Output {
    text,
    json
  }

  @Mixin StateOptions state;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    var notes = new ArrayList<String>();
    try {
      var plans = state.plans(notes);
      notes.forEach(note -> err.println("note: " + note));
      out.print(output == Output.json ? ExplainReport.json(plans) : ExplainReport.text(plans));
      out.flush();
      return 0;
    } catch (StateFileException | KubeconfigException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
    } catch (LiveClusterState.UnreachableException unreachable) {
      err.println("error: " + unreachable.getMessage());
      return 1;
    }
  }
}
