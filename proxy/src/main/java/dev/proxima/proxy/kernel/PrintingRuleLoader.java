package dev.proxima.proxy.kernel;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.iptables.JumpRule;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Consumer;

/**
 * {@code run --dry-run}'s loader: every transaction or restore buffer goes to the output and counts
 * as loaded. Its kernel holds every jump, canary and rule Proxima relies on, so nothing is inserted
 * behind the output's back and no check forces a sync, and its counters have counted nothing.
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
    return new HostCommand.Outcome(0, "", HostCommand.Ending.EXITED);
  }

  @Override
  public boolean hasCanary(String table) {
    return true;
  }

  /** Its elements at 0 and the per-Service counting sets empty. */
  @Override
  public Optional<String> counters(String family, String table, List<String> sets) {
    var listing =
        new StringBuilder("table ").append(family).append(' ').append(table).append(" {\n");
    for (var set : sets) {
      listing.append("\tset ").append(set).append(" {\n");
      if (set.equals(NftNames.COUNTERS)) {
        var elements = new StringJoiner(", ", "\t\telements = { ", " }\n");
        elements.add(NftNames.counterKey(null) + " counter packets 0 bytes 0");
        for (var locality : Locality.values()) {
          elements.add(NftNames.counterKey(locality) + " counter packets 0 bytes 0");
        }
        listing.append(elements);
      }
      listing.append("\t}\n");
    }
    return Optional.of(listing.append("}\n").toString());
  }

  @Override
  public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
    return Optional.of(true);
  }
}
