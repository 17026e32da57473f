package dev.proxima.proxy.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodeIps;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "render",
    mixinStandardHelpOptions = true,
    description = {
      "Print the complete ruleset the proxy would load on a node, exactly as it feeds it to the kernel.",
      "nftables: `render ... | nft -f -` programs a node by hand.",
      "iptables: one family per run; `render --mode iptables ... | iptables-restore --noflush` programs it,",
      "jumps from the built-in chains included (load it once: a second load adds the jumps again)."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:rendered",
      "1:the cluster of --kubeconfig could not be listed",
      "2:the state file, the kubeconfig, the node or the options are invalid"
    })
public final class RenderCommand implements Callable<Integer> {
  public enum Family {
    ipv4(IpFamily.IPV4),
    ipv6(IpFamily.IPV6);

    final IpFamily family;

    Family(IpFamily family) {
      this.family = family;
    }
  }

  @Mixin StateOptions state;

  @Mixin ServiceProxyNameOption serviceProxyName;

  @Mixin RuleOptions rules;

  @Option(
      names = "--mode",
      defaultValue = "nftables",
      description = "nftables or iptables (default: ${DEFAULT-VALUE}).")
  ProxyMode mode;

  @Option(
      names = "--family",
      description =
          "ipv4 or ipv6. iptables mode renders one family (default ipv4, the input of iptables-restore;"
              + " ipv6 is the input of ip6tables-restore); nftables mode renders both unless one is given.")
  Family family;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    List<String> notes = new ArrayList<>();
    var only = family != null ? family.family : mode == ProxyMode.iptables ? IpFamily.IPV4 : null;
    try {
      var settings = rules.toSettings().withDefaultNodePortAddressesOf(mode);
      var plans = state.plans(notes, serviceProxyName.value);
      notes.forEach(note -> err.println("note: " + note));
      for (var plan : plans) {
        if (only != null && plan.family() != only) {
          continue;
        }
        plan.warnings().forEach(warning -> err.println("warning: " + warning));
        // Offline there are no host interfaces: the Node's status.addresses stand in for them.
        var nodePortAddresses =
            settings.nodePortAddresses(
                plan.family(), NodeIps.all(state.self), NodeIps.primary(state.self));
        var podCidrs = NodeIps.podCidrs(state.self);
        if (mode == ProxyMode.iptables) {
          var rendering =
              IptablesRenderer.renderWithJumps(
                  settings.forFamily(plan.family(), nodePortAddresses, podCidrs),
                  plan.ports().stream().map(NftPlanRenderer::rules).toList());
          rendering.warnings().forEach(warning -> err.println("warning: " + warning));
          out.print(rendering.filterAndNat());
        } else {
          var rendering =
              NftPlanRenderer.render(
                  plan,
                  settings.forFamily(plan.family(), nodePortAddresses, podCidrs),
                  state.serviceCidrs());
          rendering.warnings().forEach(warning -> err.println("warning: " + warning));
          out.print(rendering.script());
        }
      }
      out.flush();
      return 0;
    } catch (StateFileException
        | KubeconfigException
        | IllegalArgumentException
        | LiveClusterState.UnreachableException failure) {
      err.println("error: " + failure.getMessage());
      return failure instanceof LiveClusterState.UnreachableException ? 1 : 2;
    }
  }
}
