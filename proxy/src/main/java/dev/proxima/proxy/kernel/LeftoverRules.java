package dev.proxima.proxy.kernel;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.iptables.IptablesCleanup;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes what one mode left in the kernel, for a switch of modes and {@code cleanup}. Each method
 * returns one line per problem; none means nothing of that mode is left.
 */
public final class LeftoverRules {
  private LeftoverRules() {}

  /** Absent tables, or no nft on the host, are fine. */
  public static List<String> removeNftables(Nft nft) {
    if (HostCommand.find("nft").isEmpty()) {
      return List.of();
    }
    var result =
        nft.apply(
            new NftTransaction(new NftText(IpFamily.IPV4))
                .deleteTable()
                .append(new NftTransaction(new NftText(IpFamily.IPV6)).deleteTable()));
    return result.succeeded() ? List.of() : List.of("nftables: " + result.summary());
  }

  /** In every installed backend: rules written through one are invisible to the other. */
  public static List<String> removeIptables(List<String> prefix) {
    var problems = new ArrayList<String>();
    for (var backend : IptablesBackend.values()) {
      for (var family : IpFamily.values()) {
        if (HostCommand.find(backend.tool(family, "-save")).isEmpty()) {
          continue;
        }
        var iptables = new Iptables(prefix, family, backend);
        var buffer = IptablesCleanup.buffer(iptables.save());
        if (buffer.isEmpty()) {
          continue;
        }
        var result = iptables.apply(buffer);
        if (!result.succeeded()) {
          problems.add(backend.tool(family, "") + ": " + result.summary());
        }
      }
    }
    return problems;
  }

  public static IptablesBackend.Decision detectBackend(List<String> prefix) {
    return IptablesBackend.decide(
        saveAll(prefix, IptablesBackend.NFT), saveAll(prefix, IptablesBackend.LEGACY));
  }

  /** Null when the backend's tools are not installed. */
  private static String saveAll(List<String> prefix, IptablesBackend backend) {
    var out = new StringBuilder();
    boolean any = false;
    for (var family : IpFamily.values()) {
      var tool = HostCommand.find(backend.tool(family, "-save"));
      if (tool.isEmpty()) {
        continue;
      }
      var command = new ArrayList<>(prefix);
      command.add(tool.get());
      var outcome = HostCommand.run(command, "", java.time.Duration.ofSeconds(30));
      if (outcome.succeeded()) {
        any = true;
        out.append(outcome.output());
      }
    }
    return any ? out.toString() : null;
  }
}
