package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A full sync in bounded transactions, so it never holds the nftables lock long: every object goes
 * beside the table's, then one small transaction switches the hooked chains to them. The first
 * holds the fixed table and the shared chains whose rules look up a map (nft 1.0.6 types those only
 * where the map is declared), known before rendering, so it loads meanwhile; then whole ports; the
 * Service CIDRs last, so no address is dropped for lacking a Service till then. A table that fits
 * one transaction goes as one, so they are held till known.
 */
final class FullSyncBatches {
  private final TableModel model;
  private final GenerationSwitch generation;
  private final NftText text;
  private final FixedLayout fixed;

  FullSyncBatches(TableModel model, GenerationSwitch generation) {
    this.model = model;
    this.generation = generation;
    this.text = generation.text;
    this.fixed = model.fixed;
  }

  RulesetAssembler.ColdRebuild write(
      List<ServicePortRules> sorted,
      int budget,
      RulesetAssembler.TransactionSink sink,
      RenderPass.SharedChains shared) {
    // Each fragment is dropped once batched: holding them all cost more heap than the script.
    // A port's held elements are final when it comes in: an earlier port keeps a contested key.
    var out = new Output(sink, budget, shared);
    var batch = new Batch();
    var port = new NftTransaction(text);
    var declared = new HashSet<String>();
    // What the port batches written so far declared: a batch using any of it loads after them.
    var declaredEarlier = new HashSet<String>();
    model.rebuild(
        sorted,
        (name, parts) -> {
          if (out.done() || !out.hasSharedChainsOf(parts) && out.differ()) {
            return;
          }
          port.clear();
          var declaring = new ArrayList<String>();
          int portLines = appendDeclarations(port, parts, declared, declaring);
          var held = model.held(name, parts);
          for (var elements : held.values()) {
            portLines += elements.size();
          }
          if (batch.lines > 0 && batch.lines + portLines > out.portBudget()) {
            out.write(batch.text(new NftTransaction(text)), batch.usesEarlier);
            declaredEarlier.addAll(batch.declared);
            batch.clear();
          }
          batch.usesEarlier |= usesAnyOf(parts, declaredEarlier);
          batch.declared.addAll(declaring);
          batch.declarations.append(port);
          held.forEach(batch::add);
          batch.lines += portLines;
        });
    if (!out.done() && !out.sharedChainsUsed()) {
      out.differ();
    }
    if (out.done()) {
      return out.ending;
    }
    if (!out.writing && model.lines() <= budget) {
      out.send(inOneTransaction(), true);
      return out.ending;
    }
    if (out.rendersFirstLast) {
      out.held.add(0, new Held(firstFromRender(), true));
    }
    var cidrs = new NftTransaction(text);
    cidrs.addKeys(NftNames.SERVICE_CIDRS, model.serviceCidrs);
    var last = batch.text(cidrs);
    out.startWriting();
    if (!last.isEmpty()) {
      out.send(last, true);
    }
    out.send(generation.switchTo(), true);
    return out.ending;
  }

  NftTransaction inOneTransaction() {
    var all = new NftTransaction(text, model.length(text));
    generation.appendFixedObjects(all);
    model.appendTo(all);
    return all.append(generation.switchTo());
  }

  /** Holds the transactions until the table is known to need several, then hands them on. */
  private final class Output {
    private final RulesetAssembler.TransactionSink sink;
    private final int budget;
    private final Set<String> sharedChains;
    final List<Held> held = new ArrayList<>();
    boolean writing;

    /** The shared chains fell short before anything was handed over: rendered at the end. */
    boolean rendersFirstLast;

    private int portBatches;
    RulesetAssembler.ColdRebuild ending = RulesetAssembler.ColdRebuild.WRITTEN;

    Output(RulesetAssembler.TransactionSink sink, int budget, RenderPass.SharedChains shared) {
      this.sink = sink;
      this.budget = budget;
      this.sharedChains = new HashSet<>(shared.names());
      var objects = RenderPass.sharedChainObjects(model.config, shared);
      var first =
          firstTransaction(
              fixed.script.length() + 256 * shared.names().size(),
              shared.names(),
              objects.chains,
              objects.rules);
      held.add(new Held(first, true));
      if (fixed.chains.size() + model.serviceCidrs.size() + shared.elementsAtLeast() > budget) {
        startWriting(); // sure to need several: the loading starts while the ports are rendered
      }
    }

    /** The first batches are smaller, so the kernel starts loading early. */
    int portBudget() {
      return !writing || portBatches >= 2 ? budget : Math.max(1, budget >> (2 - portBatches));
    }

    boolean hasSharedChainsOf(RenderPass parts) {
      for (var chain : parts.chains.keySet()) {
        if (!rendersFirstLast
            && !sharedChains.contains(chain)
            && TableModel.looksUpMap(parts.rules.getOrDefault(chain, List.of()))) {
          return false;
        }
      }
      return true;
    }

    boolean sharedChainsUsed() {
      return rendersFirstLast || model.chainRules.keySet().containsAll(sharedChains);
    }

    void write(NftTransaction batch, boolean usesEarlier) {
      portBatches++;
      held.add(new Held(batch, usesEarlier));
      if (writing || !rendersFirstLast && model.lines() > budget) {
        startWriting();
      }
    }

    void startWriting() {
      writing = true;
      for (int i = 0; i < held.size() && !done(); i++) {
        send(held.get(i).text(), held.get(i).alone());
      }
      held.clear();
    }

    void send(NftTransaction transaction, boolean alone) {
      if (!done() && !sink.accept(transaction, alone)) {
        ending = RulesetAssembler.ColdRebuild.STOPPED;
      }
    }

    boolean differ() {
      if (writing) {
        ending = RulesetAssembler.ColdRebuild.SHARED_CHAINS_DIFFER;
      } else {
        rendersFirstLast = true;
        held.remove(0);
      }
      return done();
    }

    boolean done() {
      return ending != RulesetAssembler.ColdRebuild.WRITTEN;
    }
  }

  private record Held(NftTransaction text, boolean alone) {}

  private NftTransaction firstFromRender() {
    var shared = new ArrayList<String>();
    model.chainRules.forEach(
        (chain, rules) -> {
          if (TableModel.looksUpMap(rules)) {
            shared.add(chain);
          }
        });
    return firstTransaction(
        model.length(text) / 8 + fixed.script.length(),
        shared,
        model.chainDeclarations,
        model.chainRules);
  }

  private NftTransaction firstTransaction(
      int capacity,
      List<String> shared,
      Map<String, NftChain> declarations,
      Map<String, List<NftRule>> rules) {
    var first = new NftTransaction(text, capacity);
    generation.appendFixedObjects(first);
    for (var chain : shared) {
      first.addChain(declarations.get(chain));
      rules.get(chain).forEach(first::addRule);
    }
    return first;
  }

  /** Declarations and rules, then one element block per set: a block per port doubled the text. */
  private final class Batch {
    final NftTransaction declarations = new NftTransaction(text);
    final Map<String, List<NftElement>> elements = new LinkedHashMap<>();

    /** Ports may share an element (a hairpin pair). */
    final Map<String, Set<NftElement>> once = new HashMap<>();

    int lines;
    final Set<String> declared = new HashSet<>();
    boolean usesEarlier;

    void add(String set, List<NftElement> held) {
      var ofSet = elements.computeIfAbsent(set, s -> new ArrayList<>());
      var seen = once.computeIfAbsent(set, s -> new HashSet<>());
      for (var element : held) {
        if (seen.add(element)) {
          ofSet.add(element);
        }
      }
    }

    NftTransaction text(NftTransaction tail) {
      var out = new NftTransaction(text, declarations.length() + 64 * lines + tail.length());
      out.append(declarations);
      elements.forEach(out::addElements);
      return out.append(tail);
    }

    void clear() {
      declarations.clear();
      elements.clear();
      once.clear();
      lines = 0;
      declared.clear();
      usesEarlier = false;
    }
  }

  /** Whether the port uses a chain or set among {@code declared}, named as appendDeclarations. */
  private static boolean usesAnyOf(RenderPass parts, Set<String> declared) {
    if (declared.isEmpty()) {
      return false;
    }
    for (var chain : parts.chains.keySet()) {
      if (declared.contains(chain)) {
        return true;
      }
    }
    for (var set : parts.sets.keySet()) {
      if (declared.contains("set " + set)) {
        return true;
      }
    }
    return false;
  }

  /** The chains (with their rules) and sets no earlier port declared; returns the lines. */
  private int appendDeclarations(
      NftTransaction out, RenderPass parts, Set<String> declared, List<String> declaring) {
    int lines = 0;
    for (var chain : parts.chains.keySet()) {
      if (TableModel.looksUpMap(parts.rules.getOrDefault(chain, List.of()))) {
        // In the first transaction, with its rules.
        declared.add(chain);
        declared.add("rules " + chain);
      } else if (declared.add(chain)) {
        out.addChain(model.chainDeclarations.get(chain));
        declaring.add(chain);
        lines++;
      }
    }
    for (var entry : parts.sets.entrySet()) {
      if (declared.add("set " + entry.getKey())) {
        out.addSet(entry.getValue());
        declaring.add("set " + entry.getKey());
        lines++;
      }
    }
    for (var chain : parts.chains.keySet()) {
      if (declared.add("rules " + chain)) {
        for (var rule : model.chainRules.getOrDefault(chain, List.of())) {
          out.addRule(rule);
          lines++;
        }
      }
    }
    return lines;
  }
}
