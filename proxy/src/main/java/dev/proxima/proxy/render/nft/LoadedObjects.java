package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ports' chains and sets the kernel holds, and the stale ones: emptied when unused, deleted
 * later, as kernels before 6.2 notice only after a transaction that no map element refers to them.
 */
final class LoadedObjects {
  /** So one cleanup holds the nftables lock briefly. */
  static final int CLEANUP_BATCH = 2_000;

  final Map<String, List<NftRule>> chains = new HashMap<>();
  final Set<String> sets = new LinkedHashSet<>();
  private final Map<String, Instant> staleChains = new LinkedHashMap<>();
  private final Map<String, Stale> staleSets = new LinkedHashMap<>();

  private record Stale(NftSet.Kind kind, Instant since) {}

  void reset(Map<String, List<NftRule>> chains, Set<String> sets) {
    this.chains.clear();
    this.chains.putAll(chains);
    this.sets.clear();
    this.sets.addAll(sets);
    forgetStale();
  }

  void forgetStale() {
    staleChains.clear();
    staleSets.clear();
  }

  void staleChain(String chain, Instant now) {
    staleChains.putIfAbsent(chain, now);
  }

  void staleSet(NftSet set, Instant now) {
    staleSets.putIfAbsent(set.name(), new Stale(set.kind(), now));
  }

  void revive(RenderPass parts) {
    parts.chains.forEach(
        (name, chain) -> {
          staleChains.remove(name);
          if (chain.map() != null) {
            staleSets.remove(chain.map().name());
          }
        });
    parts.sets.keySet().forEach(staleSets::remove);
  }

  /** Chains first: a chain's map goes after it. */
  Optional<RulesetAssembler.StaleCleanup> cleanup(NftText text, Instant due) {
    var out = new NftTransaction(text);
    var chains = new ArrayList<String>();
    var sets = new ArrayList<String>();
    staleChains.forEach(
        (chain, since) -> {
          if (!since.isAfter(due) && chains.size() < CLEANUP_BATCH) {
            chains.add(chain);
            if (!this.chains.getOrDefault(chain, List.of()).isEmpty()) {
              out.flushChain(chain); // an lb-N chain, which kept its rule
            }
            out.deleteChain(chain);
          }
        });
    staleSets.forEach(
        (set, stale) -> {
          if (!stale.since().isAfter(due) && chains.size() + sets.size() < CLEANUP_BATCH) {
            sets.add(set);
            out.deleteSet(stale.kind(), set);
          }
        });
    if (chains.isEmpty() && sets.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new RulesetAssembler.StaleCleanup(out, List.copyOf(chains), List.copyOf(sets)));
  }

  void deleted(List<String> chains, List<String> sets) {
    chains.stream().filter(chain -> staleChains.remove(chain) != null).forEach(this.chains::remove);
    sets.stream().filter(set -> staleSets.remove(set) != null).forEach(this.sets::remove);
  }

  void kept(List<String> chains, List<String> sets, Instant since) {
    chains.forEach(chain -> staleChains.computeIfPresent(chain, (c, was) -> since));
    sets.forEach(set -> staleSets.computeIfPresent(set, (s, was) -> new Stale(was.kind(), since)));
  }

  int pending() {
    return staleChains.size() + staleSets.size();
  }
}
