package dev.proxima.proxy.cli;

import dev.proxima.proxy.kernel.LeftoverRules;
import dev.proxima.proxy.kernel.Nft;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "cleanup",
    mixinStandardHelpOptions = true,
    description = {
      "Delete everything Proxima installed, whatever the mode: the nftables tables ip and ip6 proxima,",
      "and the PROXIMA- iptables chains with the jumps into them (both families, both iptables backends).",
      "Idempotent; touches no other table, chain or rule."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:nothing of Proxima's is left", "1:a tool failed (the message says why)"})
public final class CleanupCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    List<String> problems = new ArrayList<>(LeftoverRules.removeNftables(Nft.onThisHost()));
    problems.addAll(LeftoverRules.removeIptables(List.of()));
    if (!problems.isEmpty()) {
      problems.forEach(problem -> spec.commandLine().getErr().println("error: " + problem));
      return 1;
    }
    spec.commandLine()
        .getOut()
        .println(
            "Removed Proxima's nftables tables (ip proxima, ip6 proxima) and iptables chains"
                + " (PROXIMA-*), if there were any.");
    return 0;
  }
}
