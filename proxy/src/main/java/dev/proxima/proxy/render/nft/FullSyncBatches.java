package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * A full sync in bounded transactions, so it never holds the nftables lock long: every object goes
 * beside what the table holds, under this generation's names, then one small transaction switches
 * the hooked chains to them ({@link GenerationSwitch}).
 *
 * <p>The first transaction creates the fixed table and the shared chains whose rules look up a map
 * (nft 1.0.6 types such a rule only in the transaction that declares the map), found from the
 * routing decisions before any port is rendered ({@link RenderPass#sharedChainsOf}), so it can load
 * while the rest is rendered. Each later one brings whole Service ports, their declarations before
 * their elements, so no transaction names an object that does not exist yet. The Service CIDRs come
 * last: until then no address is dropped for lacking a Service. A table small enough for one
 * transaction goes as one, switch included; the transactions are held until the table is known to
 * be larger.
 */
final class FullSyncBatches {
  /** How the batches ended; see {@link RulesetAssembler.ColdRebuild}. */
  enum Ending {
    WRITTEN,
    STOPPED,
    SHARED_CHAINS_DIFFER
  }

  private final TableModel model;
  private final GenerationSwitch generation;
  private final NftText text;
  private final FixedTable fixed;

  FullSyncBatches(TableModel model, GenerationSwitch generation, FixedTable fixed) {
    this.model = model;
    this.generation = generation;
    this.text = generation.text();
    this.fixed = fixed;
  }

  /**
   * Renders {@code sorted} into the model and hands {@code sink} the transactions, in load order,
   * each of about {@code budget} lines or fewer. The sink's second argument is true when the
   * transaction must load alone, after every earlier one: a port batch that only adds ports of its
   * own may load beside others. Every port is rendered whatever the sink says.
   */
  Ending write(
      List<ServicePortRules> sorted,
      int budget,
      BiPredicate<String, Boolean> sink,
      RenderPass.SharedChains shared) {
    // Each port's part goes into the batches as it is rendered and its fragment is dropped at
    // once: holding every fragment cost more heap than the script itself. A port's held elements
    // are final when it comes in, since an earlier port in name order keeps a contested key.
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
    out.send(generation.switchTo().toString(), true);
    return out.ending;
  }

  /** Every object beside what the kernel holds, then the switch, in one transaction. */
  String inOneTransaction() {
    var all = new NftTransaction(text, model.length(text));
    generation.appendFixedObjects(all);
    model.appendTo(all);
    return all.append(generation.switchTo()).toString();
  }

  /**
   * The transactions on their way to the sink: the first is written at once; it and the port
   * batches after it are held until the table is known to need more than one transaction (at once
   * when the elements every render adds exceed the budget already), then handed over as they come.
   */
  private final class Output {
    private final BiPredicate<String, Boolean> sink;
    private final int budget;
    private final Set<String> sharedChains;
    final List<Held> held = new ArrayList<>();
    boolean writing;

    /**
     * The shared chains found before rendering fell short before anything was handed over: the
     * first transaction is written from the render at the end instead.
     */
    boolean rendersFirstLast;

    private int portBatches;
    Ending ending = Ending.WRITTEN;

    Output(BiPredicate<String, Boolean> sink, int budget, RenderPass.SharedChains shared) {
      this.sink = sink;
      this.budget = budget;
      this.sharedChains = new HashSet<>(shared.names());
      var objects = RenderPass.sharedChainObjects(model.config(), shared);
      var first =
          firstTransaction(
              fixed.script().length() + 256 * shared.names().size(),
              shared.names(),
              objects.chains(),
              objects.rules());
      held.add(new Held(first, true));
      if (fixed.chains().size() + model.serviceCidrs.size() + shared.elementsAtLeast() > budget) {
        startWriting(); // sure to need several: the loading starts while the ports are rendered
      }
    }

    /**
     * The lines of the next port batch: while the first few go as soon as written, they grow from a
     * quarter of the budget, so the kernel starts loading early and the renderer gets ahead.
     */
    int portBudget() {
      return !writing || portBatches >= 2 ? budget : Math.max(1, budget >> (2 - portBatches));
    }

    boolean hasSharedChainsOf(ServiceFragment parts) {
      for (var chain : parts.chains().keySet()) {
        if (!rendersFirstLast
            && !sharedChains.contains(chain)
            && TableModel.looksUpMap(parts.rules().getOrDefault(chain, List.of()))) {
          return false;
        }
      }
      return true;
    }

    boolean sharedChainsUsed() {
      return rendersFirstLast || model.chainRules.keySet().containsAll(sharedChains);
    }

    void write(String batch, boolean usesEarlier) {
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

    void send(String transaction, boolean alone) {
      if (!done() && !sink.test(transaction, alone)) {
        ending = Ending.STOPPED;
      }
    }

    /** The shared chains are not those the render uses; true when nothing more is written. */
    boolean differ() {
      if (writing) {
        ending = Ending.SHARED_CHAINS_DIFFER;
      } else {
        rendersFirstLast = true;
        held.remove(0);
      }
      return done();
    }

    boolean done() {
      return ending != Ending.WRITTEN;
    }
  }

  private record Held(String text, boolean alone) {}

  /** The first transaction from the render: the fixed table and the shared chains rendered. */
  private String firstFromRender() {
    var shared = new ArrayList<String>();
    model.chainRules.forEach(
        (chain, rules) -> {
          if (TableModel.looksUpMap(rules)) {
            shared.add(chain);
          }
        });
    return firstTransaction(
        model.length(text) / 8 + fixed.script().length(),
        shared,
        model.chainDeclarations,
        model.chainRules);
  }

  /** The fixed table, then each shared chain that looks up a map with its rules, in this order. */
  private String firstTransaction(
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
    return first.toString();
  }

  /**
   * One port batch: its ports' declarations and rules, then their elements in one block per set. A
   * block per port and set, as a partial sync writes them, made a large table's script twice as
   * long, and nft's time grows with the script.
   */
  private final class Batch {
    final NftTransaction declarations = new NftTransaction(text);
    final Map<String, List<NftElement>> elements = new LinkedHashMap<>();

    /** The elements of each set once, though ports may share one (a hairpin pair). */
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

    /** The transaction's text, with {@code tail} after the elements. */
    String text(NftTransaction tail) {
      var out = new NftTransaction(text, declarations.length() + 64 * lines + tail.length());
      out.append(declarations);
      elements.forEach(out::addElements);
      return out.append(tail).toString();
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
  private static boolean usesAnyOf(ServiceFragment parts, Set<String> declared) {
    if (declared.isEmpty()) {
      return false;
    }
    for (var chain : parts.chains().keySet()) {
      if (declared.contains(chain)) {
        return true;
      }
    }
    for (var set : parts.sets().keySet()) {
      if (declared.contains("set " + set)) {
        return true;
      }
    }
    return false;
  }

  /**
   * One port's declarations: the chains (with their rules) and sets no earlier port declared; its
   * elements go in the batch's blocks. Returns the lines written.
   */
  private int appendDeclarations(
      NftTransaction out, ServiceFragment parts, Set<String> declared, List<String> declaring) {
    int lines = 0;
    for (var chain : parts.chains().keySet()) {
      if (TableModel.looksUpMap(parts.rules().getOrDefault(chain, List.of()))) {
        // In the first transaction, with its rules.
        declared.add(chain);
        declared.add("rules " + chain);
      } else if (declared.add(chain)) {
        out.addChain(model.chainDeclarations.get(chain));
        declaring.add(chain);
        lines++;
      }
    }
    for (var entry : parts.sets().entrySet()) {
      if (declared.add("set " + entry.getKey())) {
        out.addSet(entry.getValue());
        declaring.add("set " + entry.getKey());
        lines++;
      }
    }
    for (var chain : parts.chains().keySet()) {
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
