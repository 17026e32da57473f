package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One generation's fixed objects, the switch of the hooked chains to them, and the deletion of what
 * earlier generations left. Only the hooked chains and the sets that hold state ({@link
 * NftText#keepsName}) keep their names across generations, so nothing those sets hold is lost.
 */
final class GenerationSwitch {
  private final FixedLayout layout;
  private final NftText text;
  final Set<String> baseChains;

  GenerationSwitch(FixedLayout layout, IpFamily family, int generation) {
    this.layout = layout;
    var hooked = new LinkedHashSet<String>();
    layout.chains.forEach(
        (name, chain) -> {
          if (chain.hook() != null) {
            hooked.add(name);
          }
        });
    this.baseChains = Collections.unmodifiableSet(hooked);
    this.text = new NftText(family, generation, hooked);
  }

  NftText text() {
    return text;
  }

  /** The fixed table's objects but the base chains; {@code add} leaves a kept set as it is. */
  void appendFixedObjects(NftTransaction out) {
    layout.appendTo(out.addTable(), baseChains);
  }

  /**
   * One small transaction, after everything the base chains lead to is loaded, so every packet
   * meets the old objects or the new ones, never a part of either.
   */
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
      KernelTable before, Set<String> countingKeys, TableModel model) {
    var table = text.table() + " ";
    var first = new ArrayList<String>();
    var last = new ArrayList<String>();
    before
        .chains()
        .forEach(
            (chain, kind) -> {
              if (!kind.base() || !baseChains.contains(chain)) {
                first.add("flush chain " + table + chain);
                last.add("delete chain " + table + chain);
              }
            });
    before
        .sets()
        .forEach(
            (set, kind) -> {
              if (!keeps(set, model)) {
                first.add("delete " + kind + " " + table + set);
              }
            });
    for (var set : NftNames.SERVICE_SETS) {
      if (before.sets().containsKey(set) && keeps(set, model)) {
        var wanted = model.elementUses.get(set);
        countingKeys.stream()
            .filter(key -> wanted == null || !wanted.contains(NftElement.of(key)))
            .sorted()
            .forEach(
                key -> {
                  first.add("add element " + table + set + " { " + key + " }");
                  first.add("delete element " + table + set + " { " + key + " }");
                });
      }
    }
    // No rule of this layout uses a named counter: those an earlier one counted in go too.
    before.counters().forEach(counter -> last.add("delete counter " + table + counter));
    return new RulesetAssembler.Deleting(List.copyOf(first), List.copyOf(last));
  }

  boolean keeps(String kernelSet, TableModel model) {
    return NftText.keepsName(kernelSet)
        && (layout.sets.containsKey(kernelSet) || model.setDeclarations.containsKey(kernelSet));
  }
}
