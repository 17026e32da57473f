package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Keeps one family's ruleset as per-Service-port fragments, so a sync renders only the Service
 * ports that changed and loads only what that changes in the kernel.
 *
 * <p>Each fragment is what that one port adds to the fixed table (the layout {@link NftRenderer}
 * describes): its set and map elements, and the chains and sets it needs ({@code lb-N}, affinity
 * chains). Elements and chains that several ports share (a hairpin pair, an {@code lb-2} chain) are
 * reference-counted: a delete is sent only when the last port stops using them. Ownership of
 * contested address keys is decided before the ports get here ({@link
 * dev.proxima.proxy.plan.AddressOwners}); should two ports still claim one map key, the one earlier
 * in ServicePortName order keeps it, as in a full render.
 *
 * <p>A chain or set nothing uses any more is stale: the transaction that stops using it flushes it
 * (a chain) and takes out what refers to it, and {@link #staleCleanup()} deletes it in a later
 * transaction, once it has been stale for {@link #STALE_DELAY}. It cannot go in the same
 * transaction: kernels before 6.2 notice only after a transaction that a deleted map element no
 * longer refers to a chain, and refuse to delete the chain until then. A port that uses a stale
 * chain or set again before then takes it back, and nothing deletes it. Shared chains whose rules
 * look up a map (the {@code lb-N} chains) stay loaded instead: only a full sync could load them
 * again, and there is one per endpoint count, not one per Service.
 *
 * <p>A counted Service port's connections are counted in the elements of the four {@code
 * service-<locality>} sets ({@link NftNames#serviceSet}), which come and go with the port like any
 * other element; a key two counted ports share is one element, counted as the first's in name order
 * ({@link #countingOwners()}). A full sync keeps those sets, so the counts survive it.
 *
 * <p>A full sync never has to be one long transaction (which would hold the nftables lock other
 * tools wait on): {@link #replaceAllInBatches} builds every object beside what the table holds,
 * under names of a generation of its own ({@link NftText}), in ordered transactions of whole
 * Service ports bounded in size, and ends with a small transaction that switches the base chains to
 * them. The sets that hold state (ClientIP affinity, per-Service counts) and the named counters
 * keep their names, so both generations share them and nothing they hold is lost; the caller
 * deletes what the earlier generation left once the switch is loaded.
 */
public final class RulesetAssembler {
  /** How long a chain or set stays stale before {@link #staleCleanup()} deletes it. */
  public static final Duration STALE_DELAY = Duration.ofSeconds(1);

  private final FamilySettings config;
  private final Clock clock;
  private final NftText text;
  private final String fixedScript;
  private final FixedTable fixed;

  private final int generation;

  /** The fixed table's objects, which a full sync writes under its generation's names. */
  private final FixedLayout layout;

  /**
   * The hooked chains: the only objects every generation shares, and where the dispatch switches.
   */
  private final Set<String> baseChains;

  /**
   * Each port's input. Rendering is deterministic, so rendering it again when the port changes or
   * goes gives back exactly the elements, chains and sets it added; keeping those instead would
   * cost several hundred bytes per port.
   */
  private final Map<ServicePortName, ServicePortRules> ports = new TreeMap<>();

  private final Map<String, ElementUses> elementUses = new LinkedHashMap<>();
  private final Map<String, KeyOwners> keyOwners = new HashMap<>();
  private final Map<String, Integer> chainUses = new HashMap<>();
  private final Map<String, NftChain> chainDeclarations = new LinkedHashMap<>();
  private final Map<String, List<NftRule>> chainRules = new LinkedHashMap<>();
  private final Map<String, NftSet> setDeclarations = new LinkedHashMap<>();
  private final Map<String, List<NftRule>> kernelChains = new HashMap<>();

  /** The counted Service ports, read at scrape time from another thread. */
  private final Set<ServicePortName> countedPorts =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * Each key of the counting sets to the counted port whose connections it counts: the first in
   * name order of the ports that have it. Read at scrape time from another thread.
   */
  private final Map<String, ServicePortName> countingOwners =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The ports sharing a counting key, for the few keys more than one port has. */
  private final Map<String, java.util.TreeSet<ServicePortName>> sharedCountingKeys =
      new HashMap<>();

  private final Set<String> kernelSets = new LinkedHashSet<>();
  private final List<String> warnings = new ArrayList<>();

  /** Chains in the kernel that nothing uses, flushed, with the time they became stale. */
  private final Map<String, Instant> staleChains = new LinkedHashMap<>();

  /** Sets and maps in the kernel that nothing uses, with their kind and stale time. */
  private final Map<String, StaleSet> staleSets = new LinkedHashMap<>();

  /** Chains whose last user went in the update under way: flushed and marked stale at its end. */
  private final Set<String> dropped = new LinkedHashSet<>();

  private record StaleSet(NftSet.Kind kind, Instant since) {}

  /**
   * A transaction deleting stale chains and sets; pass it to {@link #staleDeleted} once the kernel
   * took it, or to {@link #staleKept} when it refused it.
   *
   * @param script the nft transaction
   * @param chains the chains it deletes
   * @param sets the sets and maps it deletes
   */
  public record StaleCleanup(String script, List<String> chains, List<String> sets) {}

  /** The elements of {@code service-cidrs}: canonical, outermost only (an interval set). */
  private List<String> serviceCidrs = List.of();

  public RulesetAssembler(FamilySettings config) {
    this(config, Clock.systemUTC());
  }

  /**
   * @param clock when chains and sets become stale, and when they are old enough to delete
   */
  public RulesetAssembler(FamilySettings config, Clock clock) {
    this(config, clock, 0);
  }

  /**
   * @param clock when chains and sets become stale, and when they are old enough to delete
   * @param generation whose names the objects get ({@link NftText}): a full sync over a table that
   *     holds objects already builds its own beside them under names no object there has
   */
  public RulesetAssembler(FamilySettings config, Clock clock, int generation) {
    this.config = config;
    this.clock = clock;
    this.layout = new FixedLayout(config);
    this.fixed = layout.build();
    this.fixedScript = fixed.script();
    var baseChains = new LinkedHashSet<String>();
    layout.chains.forEach(
        (name, chain) -> {
          if (chain.hook() != null) {
            baseChains.add(name);
          }
        });
    this.baseChains = Set.copyOf(baseChains);
    this.text = new NftText(config.family(), generation, baseChains);
    this.generation = generation;
  }

  /** Replaces every fragment, e.g. for a full sync; returns the script that replaces the table. */
  public String replaceAll(List<ServicePortRules> ports) {
    rebuild(ports, null);
    return fullScript();
  }

  /**
   * Replaces every fragment, and returns the transactions that build its objects beside what the
   * table holds and switch to them, in load order, each of about {@code budget} lines or fewer (one
   * Service port larger than that goes alone): {@link #replaceAllInBatches(List, int,
   * TransactionSink)}, collected.
   *
   * @throws IllegalStateException should a port need a shared chain the first transaction lacks
   *     (never, while {@link RenderPass#sharedChainsOf} follows the render)
   */
  public List<String> replaceAllInBatches(List<ServicePortRules> ports, int budget) {
    var batches = new ArrayList<String>();
    var written =
        replaceAllInBatches(
            ports,
            budget,
            (batch, alone) -> {
              batches.add(batch);
              return true;
            });
    if (written != ColdRebuild.WRITTEN) {
      throw new IllegalStateException("A port needs a shared chain the first transaction lacks");
    }
    return batches;
  }

  /**
   * Where the transactions of a cold rebuild go, in load order, each as soon as it is written, so
   * the kernel can load one while the next is rendered.
   */
  @FunctionalInterface
  public interface TransactionSink {
    /**
     * Takes the next transaction; false once loading stopped, and no later one is wanted.
     *
     * @param alone true when the transaction must load after every earlier one and before any later
     *     one: the first (the table and its shared chains, which every later one uses), the last
     *     (the Service CIDRs, which drop what no Service holds), and a port batch that uses an
     *     object an earlier port batch declared. False for a port batch that only adds whole
     *     Service ports of its own: it may load while other such batches load.
     */
    boolean accept(String transaction, boolean alone);
  }

  /** How a cold rebuild in batches ended. */
  public enum ColdRebuild {
    /** Every transaction went to the sink. */
    WRITTEN,
    /** The sink stopped taking them; the ones after the last it took were not written. */
    STOPPED,
    /**
     * The shared chains of the first transaction, found before rendering, are not those the render
     * uses: no transaction after the port that showed it was written, and the caller must rebuild
     * another way. Never happens while {@link RenderPass#sharedChainsOf} follows the render.
     */
    SHARED_CHAINS_DIFFER
  }

  /**
   * Replaces every fragment, and hands {@code sink} the transactions that build it beside what the
   * table holds, in load order, each as soon as it is written, each of about {@code budget} lines
   * or fewer (one Service port larger than that goes alone). The first creates the table with its
   * fixed chains, sets and maps and the shared chains whose rules look up a map (nft 1.0.6 types
   * such a rule only in the transaction that declares the map; they are reached only through a
   * Service's map element): which of those the ports use is worked out from their routing decisions
   * before any is rendered ({@link RenderPass#sharedChainsOf}), so the first transaction can go
   * first. Each later one brings whole Service ports: their chains and sets, then their elements,
   * the map elements that send traffic to them included. So no transaction names an object that
   * does not exist yet, and a Service port is reachable only once everything it uses is loaded. The
   * Service CIDRs come last: until then no address is dropped for lacking a Service. Then the
   * switch: the base chains, emptied and given the jumps to this generation's chains. Until it
   * loads, no packet reaches anything these transactions added, so they go beside whatever the
   * table holds (an earlier generation, or nothing). A table small enough for one transaction goes
   * as one, switch included; the transactions are held until the table is known to be larger.
   *
   * <p>Every port is rendered whatever the sink says, so the assembler holds the whole new state at
   * the end: what the caller does when the kernel refused a transaction is not this method's say.
   */
  public ColdRebuild replaceAllInBatches(
      List<ServicePortRules> ports, int budget, TransactionSink sink) {
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    return replaceAllInBatches(sorted, budget, sink, RenderPass.sharedChainsOf(config, sorted));
  }

  /**
   * {@link #replaceAllInBatches(List, int, TransactionSink)} with the shared chains of the first
   * transaction given, for a test to give the wrong ones.
   */
  ColdRebuild replaceAllInBatches(
      List<ServicePortRules> ports,
      int budget,
      TransactionSink sink,
      RenderPass.SharedChains shared) {
    // Each port's part is written into the batches as it is rendered and its fragment dropped at
    // once: holding every fragment until the end cost more heap than the script itself (tens of
    // MiB at 10,000 Services). A port's held elements are final when it comes in, since ports come
    // in name order and an earlier one keeps a contested key. The shared chains that look up a map
    // go in the first batch, so the ports' parts leave them out.
    var out = new ColdOutput(sink, budget, shared);
    var batch = new ColdBatch();
    var port = new NftTransaction(text);
    var declared = new HashSet<String>();
    // What the port batches written so far declared: a batch that uses any of it must load after
    // them, where the others may load side by side.
    var declaredEarlier = new HashSet<String>();
    rebuild(
        ports,
        (name, parts) -> {
          if (out.done()) {
            return;
          }
          if (!out.hasSharedChainsOf(parts)) {
            out.differ();
            if (out.done()) {
              return;
            }
          }
          port.clear();
          var declaring = new ArrayList<String>();
          int portLines = appendDeclarations(port, parts, declared, declaring);
          var held = held(name, parts);
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
    if (!out.done() && !out.sharedChainsUsed(chainRules)) {
      out.differ();
    }
    if (out.done()) {
      return out.result();
    }
    if (!out.writing && fullScriptLines() <= budget) {
      // Small enough for one transaction: every object, then the switch.
      out.send(inOneTransaction(), true);
      return out.result();
    }
    if (out.rendersFirstLast) {
      out.held.add(0, new Transaction(firstFromRender(), true));
    }
    var cidrs = new NftTransaction(text);
    cidrs.addKeys(NftNames.SERVICE_CIDRS, serviceCidrs);
    var last = batch.text(cidrs);
    out.startWriting();
    if (!last.isEmpty()) {
      out.send(last, true);
    }
    out.send(switchTo().toString(), true);
    return out.result();
  }

  /**
   * The transactions of a cold rebuild on their way to the sink: the first (the fixed table and the
   * shared chains) is written at once; it and the port batches after it are held until the table is
   * known to need more than one transaction (at once, when the elements every render adds already
   * exceed the budget), then handed over as they come.
   */
  private final class ColdOutput {
    private final TransactionSink sink;
    private final int budget;
    private final Set<String> sharedChains;
    final List<Transaction> held = new ArrayList<>();
    boolean writing;

    /**
     * The shared chains found before rendering fell short, before anything was handed over: the
     * first transaction is written from the render at the end instead, as before it could go first.
     */
    boolean rendersFirstLast;

    /** Port batches written so far. */
    private int portBatches;

    private ColdRebuild result = ColdRebuild.WRITTEN;

    ColdOutput(TransactionSink sink, int budget, RenderPass.SharedChains shared) {
      this.sink = sink;
      this.budget = budget;
      this.sharedChains = new HashSet<>(shared.names());
      var objects = RenderPass.sharedChainObjects(config, shared);
      held.add(
          new Transaction(
              firstTransaction(
                  fixedScript.length() + 256 * shared.names().size(),
                  shared.names(),
                  objects.chains(),
                  objects.rules()),
              true));
      if (fixed.chains().size() + serviceCidrs.size() + shared.elementsAtLeast() > budget) {
        // Sure to need several transactions: the first goes now, and the loading starts while
        // the ports are rendered.
        startWriting();
      }
    }

    /**
     * The lines of the next port batch: while the first few are handed over as soon as written,
     * they grow from a quarter of the budget, so the kernel starts loading ports early and the
     * renderer (slowest while the JIT warms up) gets ahead.
     */
    int portBudget() {
      if (!writing || portBatches >= 2) {
        return budget;
      }
      return Math.max(1, budget >> (2 - portBatches));
    }

    /** Whether a port's fragment uses only shared chains the first transaction has. */
    boolean hasSharedChainsOf(ServiceFragment parts) {
      if (rendersFirstLast) {
        return true;
      }
      for (var chain : parts.chains().keySet()) {
        if (!sharedChains.contains(chain)
            && looksUpMap(parts.rules().getOrDefault(chain, List.of()))) {
          return false;
        }
      }
      return true;
    }

    /** Whether the render used every shared chain the first transaction has. */
    boolean sharedChainsUsed(Map<String, List<NftRule>> rendered) {
      if (rendersFirstLast) {
        return true;
      }
      for (var chain : sharedChains) {
        if (!rendered.containsKey(chain)) {
          return false;
        }
      }
      return true;
    }

    /**
     * A port batch, handed over once the table is known to need more than one transaction.
     *
     * @param usesEarlier whether it uses what an earlier port batch declared
     */
    void write(String batch, boolean usesEarlier) {
      portBatches++;
      held.add(new Transaction(batch, usesEarlier));
      if (writing || !rendersFirstLast && fullScriptLines() > budget) {
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
      if (!done() && !sink.accept(transaction, alone)) {
        result = ColdRebuild.STOPPED;
      }
    }

    void differ() {
      if (writing) {
        result = ColdRebuild.SHARED_CHAINS_DIFFER;
      } else {
        rendersFirstLast = true;
        held.remove(0);
      }
    }

    boolean done() {
      return result != ColdRebuild.WRITTEN;
    }

    ColdRebuild result() {
      return result;
    }
  }

  /** A cold rebuild's transaction as it waits to be handed over. */
  private record Transaction(String text, boolean alone) {}

  /** The first transaction of a new table: the fixed table and the shared chains rendered. */
  private String firstFromRender() {
    var shared = new ArrayList<String>();
    chainRules.forEach(
        (chain, rules) -> {
          if (looksUpMap(rules)) {
            shared.add(chain);
          }
        });
    return firstTransaction(
        fullScriptLengthEstimate() / 8 + fixedScript.length(),
        shared,
        chainDeclarations,
        chainRules);
  }

  /**
   * The fixed table's objects but the base chains, under this generation's names, beside whatever
   * the table holds: {@code add} leaves the sets that keep their names ({@link NftText#keepsName})
   * and the named counters as they are, elements and counts included.
   */
  private void appendFixedObjects(NftTransaction out) {
    out.addTable();
    fixed.counters().stream().sorted().forEach(out::addCounter);
    layout.chains.forEach(
        (name, chain) -> {
          if (!baseChains.contains(name)) {
            out.addChain(chain);
          }
        });
    layout.sets.values().forEach(out::addSet);
    layout.rules.forEach(
        (chain, rules) -> {
          if (!baseChains.contains(chain)) {
            rules.forEach(out::addRule);
          }
        });
    for (var set : layout.sets.keySet()) {
      out.addElements(set, layout.elements.getOrDefault(set, List.of()));
    }
  }

  /**
   * The switch: the base chains, created when missing, emptied, and given the rules that jump to
   * this generation's chains. One small transaction, after everything they lead to is loaded, so
   * every packet meets either the old objects or the new ones, never a part of either.
   */
  private NftTransaction switchTo() {
    var out = new NftTransaction(text, 2048);
    for (var chain : baseChains) {
      out.addChain(layout.chains.get(chain)).flushChain(chain);
      layout.rules.getOrDefault(chain, List.of()).forEach(out::addRule);
    }
    return out;
  }

  /**
   * Every object of the table beside what the kernel holds, then the switch, in one transaction:
   * for a table small enough, or when the batches cannot be used (see {@link
   * ColdRebuild#SHARED_CHAINS_DIFFER}).
   */
  public String inOneTransaction() {
    var all = new NftTransaction(text, fullScriptLengthEstimate());
    appendFixedObjects(all);
    appendFragments(all);
    return all.append(switchTo()).toString();
  }

  /** The hooked chains of this table, which every generation shares. */
  public Set<String> baseChains() {
    return baseChains;
  }

  /**
   * What deletes the objects {@code before} lists once this generation's switch is loaded, in the
   * order the kernel takes them, one statement a line, so the caller can load them in bounded
   * transactions.
   *
   * @param first the chains emptied (but the base chains this table has), then the sets and maps
   *     deleted but those this table keeps ({@link #keeps}), then the keys of the kept counting
   *     sets no counted port wants now, each added first so the delete finds it
   * @param chains the chains deleted, in transactions after every one of {@code first}: older
   *     kernels notice only after a transaction that a deleted map no longer refers to a chain
   */
  public record Deleting(List<String> first, List<String> chains) {}

  /**
   * The statements that delete what {@code before} held, but what this generation keeps.
   *
   * @param countingKeys the keys the kernel's counting sets hold
   */
  public Deleting deletingEarlier(KernelTable before, Set<String> countingKeys) {
    var table = text.table() + " ";
    var first = new ArrayList<String>();
    var chains = new ArrayList<String>();
    before
        .chains()
        .forEach(
            (chain, kind) -> {
              if (!kind.base() || !baseChains.contains(chain)) {
                first.add("flush chain " + table + chain);
                chains.add("delete chain " + table + chain);
              }
            });
    before
        .sets()
        .forEach(
            (set, kind) -> {
              if (!keeps(set)) {
                first.add("delete " + kind + " " + table + set);
              }
            });
    for (var set : NftNames.SERVICE_SETS) {
      if (!before.sets().containsKey(set) || !keeps(set)) {
        continue;
      }
      var wanted = elementUses.get(set);
      countingKeys.stream()
          .filter(key -> wanted == null || !wanted.contains(NftElement.of(key)))
          .sorted()
          .forEach(
              key -> {
                first.add("add element " + table + set + " { " + key + " }");
                first.add("delete element " + table + set + " { " + key + " }");
              });
    }
    return new Deleting(List.copyOf(first), List.copyOf(chains));
  }

  /** The kernel's name of a set or map in this assembler's generation. */
  public String kernelSetName(String set) {
    return text.set(set);
  }

  /**
   * Whether the set of this kernel name is one this table keeps from an earlier generation: a set
   * that holds state ({@link NftText#keepsName}) that this table declares too.
   */
  public boolean keeps(String kernelSet) {
    return NftText.keepsName(kernelSet)
        && (layout.sets.containsKey(kernelSet) || setDeclarations.containsKey(kernelSet));
  }

  /** The fixed table, then each shared chain that looks up a map with its rules, in this order. */
  private String firstTransaction(
      int capacity,
      List<String> shared,
      Map<String, NftChain> declarations,
      Map<String, List<NftRule>> rules) {
    var first = new NftTransaction(text, capacity);
    appendFixedObjects(first);
    for (var chain : shared) {
      first.addChain(declarations.get(chain));
      rules.get(chain).forEach(first::addRule);
    }
    return first.toString();
  }

  /**
   * One transaction of a new table under way: its ports' declarations and rules, then their
   * elements in one {@code add element} block per set. A block per port and set, as a partial sync
   * writes them, made the script of a 10,000-Service table twice as long (about 12 more lines per
   * port), and nft's time grows with the script.
   */
  private final class ColdBatch {
    final NftTransaction declarations = new NftTransaction(text);
    final Map<String, List<NftElement>> elements = new LinkedHashMap<>();

    /** The elements of each set once, though ports may share one (a hairpin pair). */
    final Map<String, Set<NftElement>> once = new HashMap<>();

    int lines;

    /** What this batch's ports declare, as appendDeclarations names it. */
    final Set<String> declared = new HashSet<>();

    /** Whether a port of this batch uses what an earlier port batch declared. */
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
      elements.forEach((set, ofSet) -> out.addElements(set, ofSet));
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

  /**
   * Whether the port uses a chain or set among {@code declared}, as appendDeclarations names them.
   */
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

  /** A chain whose rules look up a map: nft 1.0.6 types it only where the map is declared. */
  private static boolean looksUpMap(List<NftRule> rules) {
    for (var rule : rules) {
      if (rule.mapLookup()) {
        return true;
      }
    }
    return false;
  }

  /**
   * One port's declarations in a new table: the chains (with their rules) and sets no earlier port
   * declared; its elements go in the batch's blocks. Returns the lines written.
   */
  private int appendDeclarations(
      NftTransaction out, ServiceFragment parts, Set<String> declared, List<String> declaring) {
    int lines = 0;
    for (var chain : parts.chains().keySet()) {
      if (looksUpMap(parts.rules().getOrDefault(chain, List.of()))) {
        // In the first batch, with its rules.
        declared.add(chain);
        declared.add("rules " + chain);
      } else if (declared.add(chain)) {
        out.addChain(chainDeclarations.get(chain));
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
        for (var rule : chainRules.getOrDefault(chain, List.of())) {
          out.addRule(rule);
          lines++;
        }
      }
    }
    return lines;
  }

  /** Forgets every fragment and renders {@code ports} again; {@code seen} gets each fragment. */
  private void rebuild(
      List<ServicePortRules> ports,
      java.util.function.BiConsumer<ServicePortName, ServiceFragment> seen) {
    this.ports.clear();
    elementUses.clear();
    keyOwners.clear();
    chainUses.clear();
    chainDeclarations.clear();
    chainRules.clear();
    setDeclarations.clear();
    countedPorts.clear();
    countingOwners.clear();
    sharedCountingKeys.clear();
    warnings.clear();
    warnings.addAll(fixed.warnings());
    staleChains.clear();
    staleSets.clear();
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    for (var rules : sorted) {
      var parts = render(rules);
      add(rules.port().name(), rules, parts);
      if (seen != null) {
        seen.accept(rules.port().name(), parts);
      }
    }
    kernelChains.clear();
    kernelChains.putAll(chainRules);
    kernelSets.clear();
    kernelSets.addAll(setDeclarations.keySet());
  }

  public List<String> serviceCidrsLoaded() {
    return serviceCidrs;
  }

  /**
   * What {@link #serviceCidrs(List)} would load for {@code cidrs} and {@link #serviceCidrsLoaded}
   * then say: {@code family}'s ranges, canonical, the outermost only.
   */
  public static List<String> serviceCidrsOf(IpFamily family, List<String> cidrs) {
    var parsed = new ArrayList<Cidr>();
    for (var text : cidrs) {
      NftAddresses.parseCidr(text, family).ifPresent(parsed::add);
    }
    return NftAddresses.outermost(parsed).stream().map(Object::toString).toList();
  }

  /**
   * Forgets the stale chains and sets, for when the kernel's table was replaced whole, or may not
   * hold what this assembler thinks (a transaction failed): the next full sync finds them again.
   */
  public void forgetStale() {
    staleChains.clear();
    staleSets.clear();
  }

  /**
   * Applies changes to some ports (a null value removes the port) and returns the transaction that
   * takes the kernel there, or empty when only a full replacement can. After an empty result the
   * caller must call {@link #replaceAll}.
   *
   * <p>nft 1.0.6 cannot rebuild a {@code typeof} map's types from the kernel ("conflicting
   * protocols specified"), so a rule using such a map only loads in the transaction that declares
   * the map. Each {@code lb-N} chain therefore has a map of its own, declared with it: a new
   * endpoint count loads its chain and map in the partial sync that first needs them. Only rules of
   * such a chain already loaded could not be rewritten, and they never change.
   */
  public Optional<String> update(Map<ServicePortName, ServicePortRules> changes) {
    // Only elements the changed ports had or have can appear or disappear: note whether each was
    // in the table before, so the cost follows the change, not the table.
    var touched = new LinkedHashMap<String, Map<NftElement, Boolean>>();
    var sorted = new TreeMap<>(changes);
    dropped.clear();
    // Every old fragment goes before any new one comes in: when a change hands a key from one port
    // to another, the new owner must find it free, whatever the order of their names.
    for (var port : sorted.keySet()) {
      ServiceFragment oldParts = null;
      if (ports.get(port) != null) {
        oldParts = renderAgain(ports.get(port));
      }
      if (oldParts != null) {
        var held = held(port, oldParts);
        held.forEach((set, elements) -> note(touched, set, elements));
        remove(port, oldParts, held);
      }
    }
    for (var entry : sorted.entrySet()) {
      if (entry.getValue() != null) {
        var fresh = render(entry.getValue());
        fresh.elements().forEach((set, elements) -> note(touched, set, distinct(elements)));
        add(entry.getKey(), entry.getValue(), fresh);
      }
    }
    var out = new NftTransaction(text);
    var newRules = new NftTransaction(text);
    for (var chain : chainRules.keySet()) {
      var wanted = chainRules.get(chain);
      var inKernel = kernelChains.get(chain);
      if (wanted.equals(inKernel)) {
        continue;
      }
      var declaration = chainDeclarations.get(chain);
      if (looksUpMap(wanted) && (declaration.map() == null || !inKernelOrEmpty(inKernel))) {
        return Optional.empty();
      }
      if (inKernel == null || declaration.map() != null) {
        // A chain with a map of its own is new, or was emptied with its map deleted: both go in.
        out.addChain(declaration);
      } else {
        newRules.flushChain(chain);
      }
      wanted.forEach(rule -> newRules.addRule(rule));
      kernelChains.put(chain, wanted);
    }
    for (var set : setDeclarations.values()) {
      if (kernelSets.add(set.name())) {
        out.addSet(set);
      }
    }
    var now = clock.instant();
    for (var chain : dropped) {
      var inKernel = kernelChains.get(chain);
      if (chainRules.containsKey(chain) || inKernel == null) {
        continue; // used again, or never loaded
      }
      if (looksUpMap(inKernel)) {
        // A shared lb-N chain: a partial sync cannot load a map-lookup rule again (nft 1.0.6
        // refuses it; see the loop above), so it stays loaded for the next port with N endpoints.
        // There are only a few of them.
        continue;
      }
      if (!inKernel.isEmpty()) {
        newRules.flushChain(chain);
        kernelChains.put(chain, List.of());
      }
      staleChains.putIfAbsent(chain, now);
    }
    dropped.clear();
    out.append(newRules);
    var deletes = new NftTransaction(text);
    var adds = new NftTransaction(text);
    touched.forEach(
        (set, before) -> {
          var uses = elementUses.get(set);
          var removed = new ArrayList<NftElement>();
          var added = new ArrayList<NftElement>();
          before.forEach(
              (element, wasThere) -> {
                boolean isThere = uses != null && uses.contains(element);
                if (wasThere && !isThere) {
                  removed.add(element);
                } else if (!wasThere && isThere) {
                  added.add(element);
                }
              });
          deletes.deleteElements(set, removed);
          adds.addElements(set, added);
        });
    out.append(deletes).append(adds);
    return Optional.of(out.toString());
  }

  private static boolean inKernelOrEmpty(List<NftRule> inKernel) {
    return inKernel == null || inKernel.isEmpty();
  }

  private void note(
      Map<String, Map<NftElement, Boolean>> touched, String set, List<NftElement> elements) {
    var before = touched.computeIfAbsent(set, s -> new LinkedHashMap<>());
    var uses = elementUses.get(set);
    for (var element : elements) {
      before.putIfAbsent(element, uses != null && uses.contains(element));
    }
  }

  /**
   * Sets the Service CIDRs (the ServiceCIDR objects' ranges, any family; the other family's and
   * malformed ones are left out) and returns the transaction that takes the kernel's {@code
   * service-cidrs} set there: only the ranges that came or went, so a change costs what changed.
   * The next {@link #fullScript()} includes them.
   */
  public String serviceCidrs(List<String> cidrs) {
    var wanted = serviceCidrsOf(config.family(), cidrs);
    var removed = serviceCidrs.stream().filter(cidr -> !wanted.contains(cidr)).toList();
    var added = wanted.stream().filter(cidr -> !serviceCidrs.contains(cidr)).toList();
    serviceCidrs = wanted;
    var out = new NftTransaction(text);
    // Deletes first: a range that grew replaces the smaller one, and interval sets refuse overlaps.
    out.deleteKeys(NftNames.SERVICE_CIDRS, removed);
    out.addKeys(NftNames.SERVICE_CIDRS, added);
    return out.toString();
  }

  /**
   * The transaction deleting the chains and sets stale for at least {@link #STALE_DELAY}, or empty
   * when none is. Nothing refers to them any more: the transaction that made them stale took out
   * every rule and element that did, and a port that used one again took it back.
   */
  public Optional<StaleCleanup> staleCleanup() {
    var due = clock.instant().minus(STALE_DELAY);
    var out = new NftTransaction(text);
    var chains = new ArrayList<String>();
    var sets = new ArrayList<String>();
    staleChains.forEach(
        (chain, since) -> {
          if (!since.isAfter(due)) {
            chains.add(chain);
            out.deleteChain(chain);
          }
        });
    staleSets.forEach(
        (set, stale) -> {
          if (!stale.since().isAfter(due)) {
            sets.add(set);
            out.deleteSet(stale.kind(), set);
          }
        });
    if (chains.isEmpty() && sets.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new StaleCleanup(out.toString(), List.copyOf(chains), List.copyOf(sets)));
  }

  /** The kernel took {@code cleanup}: its chains and sets are gone. */
  public void staleDeleted(StaleCleanup cleanup) {
    for (var chain : cleanup.chains()) {
      if (staleChains.remove(chain) != null) {
        kernelChains.remove(chain);
      }
    }
    for (var set : cleanup.sets()) {
      if (staleSets.remove(set) != null) {
        kernelSets.remove(set);
      }
    }
  }

  /**
   * The kernel refused {@code cleanup}: its chains and sets stay stale, and are due again {@code
   * retry} from now, so a lasting refusal is not retried every second.
   */
  public void staleKept(StaleCleanup cleanup, Duration retry) {
    var later = clock.instant().plus(retry).minus(STALE_DELAY);
    cleanup.chains().forEach(chain -> staleChains.computeIfPresent(chain, (c, since) -> later));
    cleanup
        .sets()
        .forEach(
            set ->
                staleSets.computeIfPresent(set, (s, stale) -> new StaleSet(stale.kind(), later)));
  }

  /** How many chains and sets are stale: in the kernel, unused, not deleted yet. */
  public int stalePending() {
    return staleChains.size() + staleSets.size();
  }

  /** The complete script replacing the table with the current fragments. */
  public String fullScript() {
    var out = new NftTransaction(text, fullScriptLengthEstimate());
    if (generation == 0) {
      out.appendWritten(fixedScript);
      appendFragments(out);
      return out.toString();
    }
    appendFixedObjects(out.replaceTable());
    appendFragments(out);
    return out.append(switchTo()).toString();
  }

  /** Whose names this assembler's objects have ({@link NftText}). */
  public int generation() {
    return generation;
  }

  /** Everything the Service ports add to the fixed table: declarations, rules, elements. */
  private void appendFragments(NftTransaction out) {
    chainDeclarations.values().forEach(chain -> out.addChain(chain));
    setDeclarations.values().forEach(set -> out.addSet(set));
    chainRules.values().forEach(rules -> rules.forEach(rule -> out.addRule(rule)));
    elementUses.forEach((set, uses) -> out.addElements(set, uses.inUseOrder()));
    out.addKeys(NftNames.SERVICE_CIDRS, serviceCidrs);
  }

  /** About the lines of {@link #fullScript()}: declarations, rules and elements. */
  private long fullScriptLines() {
    long lines = fixed.chains().size() + chainDeclarations.size() + setDeclarations.size();
    for (var rules : chainRules.values()) {
      lines += rules.size();
    }
    for (var uses : elementUses.values()) {
      lines += uses.size();
    }
    return lines + serviceCidrs.size();
  }

  /**
   * About as long as {@link #fullScript()}, and not shorter: the script runs to megabytes, and a
   * builder that grows by doubling copies it several times and holds two copies while it does.
   */
  private int fullScriptLengthEstimate() {
    // "add chain|rule|set <family> proxima <name> ", the text after it, and the line's end.
    int prefix = 16 + text.table().length();
    long length = fixedScript.length();
    for (var chain : chainDeclarations.values()) {
      length += prefix + chain.name().length();
    }
    for (var set : setDeclarations.values()) {
      length += prefix + set.name().length() + set.declaration().length() + 8;
      if (set.comment() != null) {
        length += 14 + set.comment().length();
      }
    }
    for (var rules : chainRules.values()) {
      for (var rule : rules) {
        length += prefix + rule.chain().length() + rule.expression().length();
      }
    }
    for (var entry : elementUses.entrySet()) {
      // "add element <family> proxima <set> {\n", then "\t<element>,\n" each, then "}\n".
      length +=
          40 + entry.getKey().length() + entry.getValue().chars() + 3L * entry.getValue().size();
    }
    return (int) Math.min(length, Integer.MAX_VALUE - 16);
  }

  /** The Service ports counted per locality: a live view, safe to read from another thread. */
  public Set<ServicePortName> countedPorts() {
    return java.util.Collections.unmodifiableSet(countedPorts);
  }

  /**
   * Each key of the counting sets ({@code address . protocol . port}) to the counted port it counts
   * for: a live view, safe to read from another thread while syncs change it.
   */
  public Map<String, ServicePortName> countingOwners() {
    return java.util.Collections.unmodifiableMap(countingOwners);
  }

  /** How many Service ports are counted per locality now. */
  public int countedPortCount() {
    return countedPorts.size();
  }

  /**
   * Inputs left out since the last {@link #replaceAll} or {@link #updateInBatches}, such as keys
   * another port already holds.
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  /** Renders one port's part of the table; its warnings count as the assembler's. */
  private ServiceFragment render(ServicePortRules rules) {
    var parts = new RenderPass(config).fragment(rules);
    warnings.addAll(parts.warnings());
    return parts;
  }

  /**
   * Renders a port that is already in the table, to take it out: its warnings were reported when it
   * came in.
   */
  private ServiceFragment renderAgain(ServicePortRules rules) {
    return new RenderPass(config).fragment(rules);
  }

  private void add(ServicePortName port, ServicePortRules rules, ServiceFragment parts) {
    parts.elements().forEach((set, elements) -> hold(port, set, distinct(elements)));
    parts
        .chains()
        .forEach(
            (chain, line) -> {
              chainUses.merge(chain, 1, Integer::sum);
              chainDeclarations.putIfAbsent(chain, line);
              chainRules.put(chain, parts.rules().get(chain));
              staleChains.remove(chain);
            });
    setDeclarations.putAll(parts.sets());
    parts.sets().keySet().forEach(staleSets::remove);
    if (parts.counted()) {
      countedPorts.add(port);
      for (var key : parts.countingKeys()) {
        claimCounting(port, key);
      }
    }
    ports.put(port, rules);
  }

  /**
   * Counts {@code port}'s use of its elements of {@code set}: in a map, a key another port holds
   * stays with that port, and a warning says so.
   */
  private void hold(ServicePortName port, String set, List<NftElement> elements) {
    boolean map = isMap(set);
    var owners = map ? keyOwners.computeIfAbsent(ownerGroup(set), s -> new KeyOwners()) : null;
    for (var element : elements) {
      if (map) {
        var owner = owners.claim(element, port);
        if (owner != null) {
          warnings.add(
              port
                  + ": "
                  + element.key()
                  + " in "
                  + set
                  + " is already held by "
                  + owner
                  + "; skipped");
          continue;
        }
      }
      elementUses.computeIfAbsent(set, s -> new ElementUses()).use(element);
    }
  }

  /**
   * The elements of {@code parts}, which {@code port} added, that it holds now, per set in the
   * renderer's order; a set whose elements all went to other ports is listed with none, because the
   * sets a change touches are listed in that order. A map element is held exactly when its port
   * holds its key: a port that lost a key when it came in cannot get it without coming in again.
   */
  private Map<String, List<NftElement>> held(ServicePortName port, ServiceFragment parts) {
    var held = new LinkedHashMap<String, List<NftElement>>();
    parts
        .elements()
        .forEach(
            (set, elements) -> {
              var distinct = distinct(elements);
              var owners = isMap(set) ? keyOwners.get(ownerGroup(set)) : null;
              if (owners == null) {
                held.put(set, distinct);
                return;
              }
              var ofSet = new ArrayList<NftElement>(distinct.size());
              for (var element : distinct) {
                if (port.equals(owners.holder(element))) {
                  ofSet.add(element);
                }
              }
              held.put(set, ofSet);
            });
    return held;
  }

  private void remove(
      ServicePortName port, ServiceFragment parts, Map<String, List<NftElement>> held) {
    held.forEach(
        (set, elements) -> {
          var uses = elementUses.get(set);
          var owners = isMap(set) ? keyOwners.get(ownerGroup(set)) : null;
          for (var element : elements) {
            uses.release(element);
            if (owners != null) {
              owners.release(element, port);
            }
          }
        });
    parts
        .chains()
        .keySet()
        .forEach(
            chain -> {
              if (chainUses.merge(chain, -1, Integer::sum) <= 0) {
                chainUses.remove(chain);
                chainDeclarations.remove(chain);
                chainRules.remove(chain);
                dropped.add(chain);
              }
            });
    var now = clock.instant();
    for (var set : parts.sets().keySet()) {
      var declaration = setDeclarations.remove(set);
      if (declaration != null && kernelSets.contains(set)) {
        staleSets.putIfAbsent(set, new StaleSet(declaration.kind(), now));
      }
    }
    if (parts.counted()) {
      countedPorts.remove(port);
      for (var key : parts.countingKeys()) {
        releaseCounting(port, key);
      }
    }
    ports.remove(port);
  }

  /**
   * Notes that {@code port} counts under {@code key}. After DNAT the kernel cannot tell two ports
   * with the same address, protocol and port apart, so the first in name order counts the
   * connections of both, and a warning says so.
   */
  private void claimCounting(ServicePortName port, String key) {
    var owner = countingOwners.putIfAbsent(key, port);
    if (owner == null || owner.equals(port)) {
      return;
    }
    var sharing = sharedCountingKeys.computeIfAbsent(key, k -> new java.util.TreeSet<>());
    sharing.add(owner);
    sharing.add(port);
    var first = sharing.first();
    countingOwners.put(key, first);
    var other = first.equals(port) ? owner : port;
    warnings.add(
        other
            + ": its connections to "
            + key
            + " are counted as "
            + first
            + "'s (same address and port)");
  }

  /** {@code port} no longer counts under {@code key}: the next port sharing it takes it over. */
  private void releaseCounting(ServicePortName port, String key) {
    var sharing = sharedCountingKeys.get(key);
    if (sharing == null) {
      countingOwners.remove(key, port);
      return;
    }
    sharing.remove(port);
    countingOwners.put(key, sharing.first());
    if (sharing.size() == 1) {
      sharedCountingKeys.remove(key);
    }
  }

  /**
   * The elements once each, in first-seen order; the renderer does not repeat an element within a
   * set, so this normally returns {@code elements} itself without copying.
   */
  private static <E> List<E> distinct(List<E> elements) {
    if (hasNoRepeats(elements)) {
      return elements;
    }
    return List.copyOf(new LinkedHashSet<>(elements));
  }

  /** Short lists, the usual case, are compared pair by pair, which is cheaper than hashing them. */
  private static boolean hasNoRepeats(List<?> elements) {
    int size = elements.size();
    if (size > 16) {
      return new HashSet<>(elements).size() == size;
    }
    for (int i = 1; i < size; i++) {
      for (int j = 0; j < i; j++) {
        if (elements.get(i).equals(elements.get(j))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The maps whose keys one owner holds: the {@code lb-N} maps of a prefix share their keys (a way
   * in and an index), so a port that lost a way in to another port loads none of its endpoints
   * there, whatever their count; every other map on its own.
   */
  private static String ownerGroup(String set) {
    if (!NftNames.isLbChain(set)) {
      return set;
    }
    int end = set.length();
    while (Character.isDigit(set.charAt(end - 1))) {
      end--;
    }
    return set.substring(0, end);
  }

  private boolean isMap(String set) {
    if (fixed.maps().contains(set)) {
      return true;
    }
    var declared = setDeclarations.get(set);
    if (declared != null) {
      return declared.isMap();
    }
    // An lb-N chain's map, whether or not a port uses the chain now.
    return NftNames.isLbChain(set);
  }
}
