package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** One generation's fixed objects, the switch to them, and deleting what earlier ones left. */
final class GenerationSwitch {
  private final FixedLayout layout;
  final NftText text;

  /** Generation 0's: names an earlier full sync left as the kernel lists them. */
  private final NftText kernelNames;

  final Set<String> baseChains;

  GenerationSwitch(FixedLayout layout, IpFamily family, int generation) {
    this.layout = layout;
    var hooked =
        layout.chains.values().stream()
            .filter(chain -> chain.hook() != null)
            .map(NftChain::name)
            .collect(Collectors.toCollection(LinkedHashSet::new));
    this.baseChains = Collections.unmodifiableSet(hooked);
    this.text = new NftText(family, generation, hooked);
    this.kernelNames = new NftText(family);
  }

  /** The fixed table's objects but the base chains; {@code add} leaves a kept set as it is. */
  void appendFixedObjects(NftTransaction out) {
    layout.appendTo(out.addTable(), baseChains);
  }

  /** Loaded last and small, so every packet meets the old objects or the new, never a mix. */
  NftTransaction switchTo() {
    var out = new NftTransaction(text, 2048);
    for (var chain : baseChains) {
      out.addChain(layout.chains.get(chain)).flushChain(chain);
      layout.rules.getOrDefault(chain, List.of()).forEach(out::addRule);
    }
    return out;
  }

  /** A counting key no counted port wants is added before it is deleted, so the delete finds it. */
  RulesetAssembler.Deleting deletingEarlier(
      KernelTable before, Set<String> countingKeys, TableModel model, int budget) {
    var first = new Bounded(budget);
    var last = new Bounded(budget);
    for (var chain : before.chains().entrySet()) {
      if (!chain.getValue().base() || !baseChains.contains(chain.getKey())) {
        first.next(1).flushChain(chain.getKey());
        last.next(1).deleteChain(chain.getKey());
      }
    }
    for (var set : before.sets().entrySet()) {
      if (!keeps(set.getKey(), model)) {
        first.next(1).deleteSet(NftSet.Kind.of(set.getValue()), set.getKey());
      }
    }
    for (var set : NftNames.SERVICE_SETS) {
      if (before.sets().containsKey(set) && keeps(set, model)) {
        var wanted = model.elementUses.get(set);
        countingKeys.stream()
            .filter(key -> wanted == null || !wanted.containsKey(NftElement.of(key)))
            .sorted()
            .forEach(key -> first.next(2).dropKernelKey(set, key));
      }
    }
    // No rule of this layout uses a named counter: those an earlier one counted in go too.
    before.counters().forEach(counter -> last.next(1).deleteCounter(counter));
    return new RulesetAssembler.Deleting(first.transactions, last.transactions);
  }

  private final class Bounded {
    final List<NftTransaction> transactions = new ArrayList<>();
    private final int budget;
    private int lines;

    Bounded(int budget) {
      this.budget = budget;
    }

    NftTransaction next(int adding) {
      if (transactions.isEmpty() || lines + adding > budget) {
        transactions.add(new NftTransaction(kernelNames));
        lines = 0;
      }
      lines += adding;
      return transactions.get(transactions.size() - 1);
    }
  }

  boolean keeps(String kernelSet, TableModel model) {
    return NftText.keepsName(kernelSet)
        && (layout.sets.containsKey(kernelSet) || model.setDeclarations.containsKey(kernelSet));
  }
}
