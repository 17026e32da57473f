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
 * {@code run --dry-run}'s loader: every transaction (nft) or restore buffer (iptables) goes to the
 * output instead of the kernel and counts as loaded. Reads of the kernel see an empty one that
 * holds every jump, canary and rule Proxima relies on, so nothing is inserted behind the output's
 * back and no sync is forced by a check, and whose connection counters have counted nothing yet.
 * The CLI picks it; the runtime cannot tell it from the kernel.
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
