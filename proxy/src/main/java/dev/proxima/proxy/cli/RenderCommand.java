package dev.proxima.proxy.cli;

import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.plan.NftPlanRenderer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Prints the exact nft script the proxy would load on a node, for review or by-hand loading. */
@Command(
    name = "render",
    mixinStandardHelpOptions = true,
    description = {
      "Print the complete ruleset the proxy would load on a node, exactly as it feeds it to nft -f.",
      "`render ... | nft -f -` programs a node by hand."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:rendered", "2:the state file or the options are invalid"})
public final class RenderCommand implements Callable<Integer> {
  /** Data-plane modes; iptables arrives with its own renderer. */
  public enum Mode {
    nftables
  }

  @Mixin StateOptions state;

  @Mixin RuleOptions rules;

  @Option(
      names = "--mode",
      defaultValue = "nftables",
      description = "nftables (default: ${DEFAULT-VALUE}).")
  Mode mode;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    List<String> notes = new ArrayList<>();
    try {
      var settings = rules.toSettings();
      var plans = state.plans(notes);
      notes.forEach(note -> err.println("note: " + note));
      for (var plan : plans) {
        var rendering = NftPlanRenderer.render(plan, settings, state.nodeAddresses());
        plan.warnings().forEach(warning -> err.println("warning: " + warning));
        rendering.warnings().forEach(warning -> err.println("warning: " + warning));
        out.print(rendering.script());
      }
      out.flush();
      return 0;
    } catch (StateFileException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
    } catch (IllegalArgumentException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
    }
  }
}
