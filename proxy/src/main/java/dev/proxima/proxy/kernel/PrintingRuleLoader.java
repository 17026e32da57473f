package dev.proxima.proxy.kernel;

import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.iptables.JumpRule;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code run --dry-run}'s loader: every transaction (nft) or restore buffer (iptables) goes to the
 * output instead of the kernel and counts as loaded. Reads of the kernel see an empty one that
 * holds every jump, canary and rule Proxima relies on, so nothing is inserted behind the output's
 * back and no sync is forced by a check. The CLI picks it; the runtime cannot tell it from the
 * kernel.
 */
public final class PrintingRuleLoader implements IptablesKernel, RuleLoader {
  private final Consumer<String> output;

  public PrintingRuleLoader(Consumer<String> output) {
    this.output = output;
  }

  @Override
  public Nft.Result apply(String buffer) {
    output.accept(buffer);
    return new Nft.Result(true, "", null);
  }

  @Override
  public Nft.Result apply(NftTransaction transaction) {
    return apply(transaction.toString());
  }

  @Override
  public Map<String, Set<String>> proximaChains() {
    return Map.of();
  }

  @Override
  public boolean has(JumpRule jump) {
    return true;
  }

  @Override
  public HostCommand.Outcome insert(JumpRule jump) {
    return new HostCommand.Outcome(0, "");
  }

  @Override
  public boolean hasCanary(String table) {
    return true;
  }

  @Override
  public boolean referenced(String family, String table, String set) {
    return true;
  }
}
