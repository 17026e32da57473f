package dev.proxima.proxy.cli;

import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.render.nft.NftRenderer;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Removes every rule Proxima installed on this node; safe to run any number of times. */
@Command(
    name = "cleanup",
    mixinStandardHelpOptions = true,
    description =
        "Delete Proxima's nftables tables (ip and ip6 proxima). Idempotent; touches no other table.",
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:nothing of Proxima's is left", "1:nft failed (the message says why)"})
public final class CleanupCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var nft = Nft.onThisHost();
    var script = new StringBuilder();
    for (var family : IpFamily.values()) {
      script.append(NftRenderer.cleanupScript(NftPlanRenderer.nftFamily(family)));
    }
    var result = nft.apply(script.toString());
    if (!result.succeeded()) {
      spec.commandLine().getErr().println("error: " + result.summary());
      return 1;
    }
    spec.commandLine()
        .getOut()
        .println("Removed Proxima's nftables tables (ip proxima, ip6 proxima), if there were any.");
    return 0;
  }
}
