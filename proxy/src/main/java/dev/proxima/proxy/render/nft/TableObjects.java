package dev.proxima.proxy.render.nft;

import static java.util.stream.Collectors.toCollection;

import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftTransaction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The objects one rendering collects, in load order. */
abstract class TableObjects {
  final Map<String, NftChain> chains = new LinkedHashMap<>();
  final Map<String, List<NftRule>> rules = new LinkedHashMap<>();
  final Map<String, NftSet> sets = new LinkedHashMap<>();
  final Map<String, List<NftElement>> elements = new LinkedHashMap<>();

  final void base(String name, String type, String hook, int priority) {
    chains.put(name, NftChain.base(name, type, hook, priority));
    rules.put(name, new ArrayList<>());
  }

  final void chain(String name, String... chainRules) {
    chain(name, List.of(chainRules));
  }

  final void chain(String name, List<String> chainRules) {
    chains.put(name, NftChain.regular(name));
    var ofChain = new ArrayList<NftRule>(chainRules.size() + 1);
    chainRules.forEach(rule -> ofChain.add(NftRule.of(name, rule)));
    rules.put(name, ofChain);
  }

  final void chainWithMap(String name, NftSet map, List<String> chainRules) {
    chain(name, chainRules);
    chains.put(name, NftChain.withMap(name, map));
  }

  final void rule(String chain, String rule) {
    rules.get(chain).add(NftRule.of(chain, rule));
  }

  final void set(String name, String declaration, String comment) {
    sets.put(name, NftSet.set(name, declaration, comment));
  }

  final void map(String name, String type, String comment) {
    sets.put(name, NftSet.map(name, "type " + type + " ;", comment));
  }

  final void element(String set, String key, String comment, String value) {
    elements.computeIfAbsent(set, s -> new ArrayList<>()).add(new NftElement(key, value, comment));
  }

  final void appendTo(NftTransaction out, Set<String> leftOut) {
    chains.forEach(
        (name, chain) -> {
          if (!leftOut.contains(name)) {
            out.addChain(chain);
          }
        });
    sets.values().forEach(out::addSet);
    rules.forEach(
        (chain, ofChain) -> {
          if (!leftOut.contains(chain)) {
            ofChain.forEach(out::addRule);
          }
        });
    sets.keySet().forEach(set -> out.addElements(set, elements.getOrDefault(set, List.of())));
  }

  static void keys(Map<String, List<NftElement>> elements, String set, Collection<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    elements.put(set, keys.stream().map(NftElement::of).collect(toCollection(ArrayList::new)));
  }
}
