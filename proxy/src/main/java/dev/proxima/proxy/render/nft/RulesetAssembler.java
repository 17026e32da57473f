package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
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
import java.util.function.Consumer;

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
 * tools wait on): {@link #replaceAllInBatches} builds a new table, and {@link #updateInBatches}
 * takes a known one to the new state, in ordered transactions of whole Service ports bounded in
 * size. {@link #restore} takes up a table from its saved description ({@link SavedRuleset}) without
 * rendering, so a restarted proxy loads only what changed.
 */
public final class RulesetAssembler {
  /** How long a chain or set stays stale before {@link #staleCleanup()} deletes it. */
  public static final Duration STALE_DELAY = Duration.ofSeconds(1);

  private final FamilySettings config;
  private final Clock clock;
  private final NftText text;
  private final String fixedScript;
  private final FixedTable fixed;

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

  /**
   * Ports read back from a saved ruleset ({@link #restore}) and not rendered since: what they added
   * to the kernel, and the digest of the input that rendered it, in the saved file's compact form
   * (a fragment's maps for every port would cost more than the rest of the assembler). A port
   * leaves here when a sync renders it, or adopts it unchanged ({@link #changesTo}).
   */
  private final Map<ServicePortName, SavedRuleset.Port> restored = new HashMap<>();

  /** Ports that found a map key held by another port while {@link #updateInBatches} ran. */
  private final Set<ServicePortName> refusedClaims = new LinkedHashSet<>();

  /** Where each port's records go as it comes in or goes; null records nothing. */
  private Recorder recorder;

  /**
   * Receives the saved-ruleset records ({@link SavedRuleset}) of the ports that come in or go, as
   * the assembler takes them in: before the kernel does, so the caller keeps them until the load
   * succeeded.
   */
  @FunctionalInterface
  public interface Recorder {
    void record(String lines);
  }

  /**
   * The kernel's marker: a set of one element whose comment names the table's generation. Sets and
   * chains have names of their own, so the set and {@link #GENERATION_CHAIN} share one.
   */
  public static final String GENERATION_SET = "sync-generation";

  /**
   * The chain whose one rule refers to {@link #GENERATION_SET}: {@code nft flush table} removes the
   * rule but not the set's element, and a set no rule refers to says the table was flushed. No
   * packet reaches the chain.
   */
  public static final String GENERATION_CHAIN = "sync-generation";

  public RulesetAssembler(FamilySettings config) {
    this(config, Clock.systemUTC());
  }

  /**
   * @param clock when chains and sets become stale, and when they are old enough to delete
   */
  public RulesetAssembler(FamilySettings config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.text = new NftText(config.family());
    this.fixed = new FixedLayout(config).build();
    this.fixedScript = fixed.script();
  }

  /** Replaces every fragment, e.g. for a full sync; returns the script that replaces the table. */
  public String replaceAll(List<ServicePortRules> ports) {
    return replaceAll(ports, null);
  }

  /**
   * Replaces every fragment, and returns the script that takes the kernel's table there in one
   * transaction while keeping the ClientIP affinity sets that are still wanted, with their
   * elements: every chain is flushed, base chains and unneeded sets, maps and empty chains are
   * deleted, and everything is declared again ({@code add} leaves an existing regular chain or a
   * kept set in place). Nothing that could still be referenced is deleted, so older kernels, which
   * notice only after the transaction that a deleted map element no longer refers to a chain,
   * accept it: a chain that stops being used is flushed now and stale, for {@link #staleCleanup()}
   * to delete a second later (or the next full sync, which deletes the empty chains it finds).
   *
   * @param kernel what the table holds now; null replaces the whole table, affinity memory and all
   */
  public String replaceAll(List<ServicePortRules> ports, KernelTable kernel) {
    return replaceAll(ports, kernel, Set.of());
  }

  /**
   * As {@link #replaceAll(List, KernelTable)}, also keeping the counting sets ({@link
   * NftNames#serviceSet}) the kernel has, so their elements keep their counts: the wanted elements
   * are added again (which leaves an existing one's count alone), and of {@code countingKeys}, the
   * keys the kernel's counting sets hold, those no longer wanted are deleted.
   */
  public String replaceAll(
      List<ServicePortRules> ports, KernelTable kernel, Set<String> countingKeys) {
    rebuild(ports, null);
    return kernel == null ? fullScript() : keepingAffinity(kernel, countingKeys);
  }

  /**
   * Replaces every fragment, for a table that does not exist yet, and returns the transactions that
   * build it in load order, each of about {@code budget} lines or fewer (one Service port larger
   * than that goes alone): {@link #replaceAllInBatches(List, int, TransactionSink)}, collected.
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
   * Replaces every fragment, for a table that does not exist yet, and hands {@code sink} the
   * transactions that build it in load order, each as soon as it is written, each of about {@code
   * budget} lines or fewer (one Service port larger than that goes alone). The first creates the
   * table with its fixed chains, sets and maps and the shared chains whose rules look up a map (nft
   * 1.0.6 types such a rule only in the transaction that declares the map; they are reached only
   * through a Service's map element): which of those the ports use is worked out from their routing
   * decisions before any is rendered ({@link RenderPass#sharedChainsOf}), so the first transaction
   * can go first. Each later one brings whole Service ports: their chains and sets, then their
   * elements, the map elements that send traffic to them included. So no transaction names an
   * object that does not exist yet, and a Service port is reachable only once everything it uses is
   * loaded. The Service CIDRs come last: until then no address is dropped for lacking a Service. A
   * table small enough for one transaction goes as the single full script, as a single render
   * prints it; the transactions are held until the table is known to be larger.
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
      // Small enough for one transaction: the whole table at once, as a single render prints it.
      out.send(fullScript(), true);
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

  /** The fixed table, then each shared chain that looks up a map with its rules, in this order. */
  private String firstTransaction(
      int capacity,
      List<String> shared,
      Map<String, NftChain> declarations,
      Map<String, List<NftRule>> rules) {
    var first = new NftTransaction(text, capacity);
    first.appendWritten(fixedScript);
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
    restored.clear();
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

  /**
   * An assembler that holds what {@code saved} says the kernel's table holds, without rendering
   * anything: the ports' fragments as they were loaded, and the Service CIDRs. The caller has
   * checked that the kernel's marker names the saved generation and that {@code config} is the one
   * the fragments were rendered with; {@link #changesTo} and {@link #updateInBatches} then load
   * only what differs.
   */
  public static RulesetAssembler restore(
      FamilySettings config, Clock clock, SavedRuleset.Contents saved) {
    var assembler = new RulesetAssembler(config, clock);
    // Each port's fragment lives only while it goes in: its objects hold the record's own strings,
    // which the assembler's tables then share, and the record stays in its compact form.
    saved
        .ports()
        .forEach(
            (port, record) -> {
              assembler.add(port, null, record.fragment());
              assembler.restored.put(port, record);
            });
    assembler.kernelChains.putAll(assembler.chainRules);
    assembler.kernelSets.addAll(assembler.setDeclarations.keySet());
    assembler.serviceCidrs = List.copyOf(saved.serviceCidrs());
    assembler.warnings.clear();
    return assembler;
  }

  /** How many ports are as a saved ruleset restored them, not rendered since. */
  public int restoredPorts() {
    return restored.size();
  }

  /** The Service CIDRs as the kernel's set holds them after the latest transaction. */
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
   * The statements that set the table's marker to {@code marker}, whether or not the marker set
   * exists: appended to every transaction that changes what a saved ruleset describes, so the
   * kernel says which saved generation it holds. Only set and element statements: unlike a chain's
   * {@code flush} or {@code add rule}, they do not make nft 1.0.6 fetch the whole table first (8 ms
   * of nft's CPU per transaction at 44,000 Services).
   */
  public String markerScript(SavedRuleset.Marker marker) {
    return new NftTransaction(text, 160)
        .addSet(NftSet.set(GENERATION_SET, "type mark;", null))
        .flushSet(GENERATION_SET)
        .addElements(GENERATION_SET, List.of(new NftElement("0x1", null, marker.comment())))
        .toString();
  }

  /**
   * The statements that give the marker set the rule that refers to it, whatever the marker chain
   * holds: appended to the transactions of a rebuild, after {@link #markerScript}, so that a table
   * flushed since shows as a set no rule refers to.
   */
  public String markerRuleScript() {
    return new NftTransaction(text, 160)
        .addChain(NftChain.regular(GENERATION_CHAIN))
        .flushChain(GENERATION_CHAIN)
        .addRule(NftRule.of(GENERATION_CHAIN, "meta mark @" + GENERATION_SET + " return"))
        .toString();
  }

  /** A digest of the settings the fixed table and every fragment are rendered with. */
  public String settingsDigest() {
    return SavedRuleset.digest(config) + "-" + SavedRuleset.digest(fixedScript);
  }

  /** True when this assembler renders with {@code other}: its state can be the base of a sync. */
  public boolean rendersWith(FamilySettings other) {
    return config.equals(other);
  }

  /** Records every port's saved-ruleset record from now on ({@link SavedRuleset}); null stops. */
  public void recordTo(Recorder value) {
    recorder = value;
  }

  /**
   * Every port's record and the Service CIDRs as the assembler holds them now, for a saved file
   * written whole later, on another thread while syncs go on: the snapshot keeps the ports' inputs
   * (immutable) and renders each again as it is written, so it costs a reference per port until
   * then, not the table's text.
   */
  public Consumer<Recorder> recordsNow() {
    var inputs = new ArrayList<ServicePortRules>(ports.size());
    var restoredNow = new ArrayList<Map.Entry<ServicePortName, SavedRuleset.Port>>();
    ports.forEach(
        (port, rules) -> {
          var record = restored.get(port);
          if (record != null) {
            restoredNow.add(Map.entry(port, record));
          } else {
            inputs.add(rules);
          }
        });
    var cidrs = serviceCidrs;
    var settings = config;
    return out -> {
      for (var entry : restoredNow) {
        var record = entry.getValue();
        out.record(SavedRuleset.port(entry.getKey(), record.digest(), record.fragment()));
      }
      for (var rules : inputs) {
        var parts = new RenderPass(settings).fragment(rules);
        out.record(SavedRuleset.port(rules.port().name(), SavedRuleset.digest(rules), parts));
      }
      out.record(SavedRuleset.cidrs(cidrs));
    };
  }

  /**
   * The changes that take this assembler to {@code wanted}: ports that came, went or changed. A
   * restored port whose input has the digest it was saved with is taken as it is, unrendered: the
   * same input and settings render the same fragment.
   */
  public Map<ServicePortName, ServicePortRules> changesTo(List<ServicePortRules> wanted) {
    return changesTo(wanted, null);
  }

  /**
   * {@link #changesTo(List)} with the input digests ({@link SavedRuleset#digest}) of {@code wanted}
   * already computed, index for index (null computes them here): at a restart every port is
   * digested, and the caller may share that among threads.
   */
  public Map<ServicePortName, ServicePortRules> changesTo(
      List<ServicePortRules> wanted, List<String> digests) {
    var changes = new TreeMap<ServicePortName, ServicePortRules>();
    var names = new HashSet<ServicePortName>();
    for (int i = 0; i < wanted.size(); i++) {
      var rules = wanted.get(i);
      var name = rules.port().name();
      names.add(name);
      // The restored ports first, by hash: at a restart that is every port, and each lookup in
      // the ordered map compares names a dozen times.
      var saved = restored.get(name);
      if (saved != null) {
        var digest = digests == null ? SavedRuleset.digest(rules) : digests.get(i);
        if (saved.hasDigest(digest)) {
          // Keyed by the input's own name from now on: the saved file's copy of it would stay for
          // as
          // long as the port does, a few MiB at 44,000 Services.
          ports.remove(name);
          ports.put(name, rules);
          restored.remove(name);
        } else {
          changes.put(name, rules);
        }
      } else if (!rules.equals(ports.get(name))) {
        // New (not in ports: get gives null), or changed.
        changes.put(name, rules);
      }
    }
    for (var name : ports.keySet()) {
      if (!names.contains(name)) {
        changes.put(name, null);
      }
    }
    return changes;
  }

  /**
   * {@link #update} in transactions of about {@code budget} lines or fewer, each a partial sync of
   * whole Service ports: removed ports first, then the others in name order. Each transaction is
   * complete on its own (the chains and sets its ports use, their elements, and the map elements
   * that send traffic to them), so between two of them some ports are new and the rest old, none
   * half-built. Empty when only a full replacement can load the changes (see {@link #update}); then
   * nothing of them is loaded and the caller must call {@link #replaceAll}.
   */
  public Optional<List<String>> updateInBatches(
      Map<ServicePortName, ServicePortRules> changes, int budget) {
    var order = new ArrayList<Map.Entry<ServicePortName, ServicePortRules>>();
    changes.entrySet().stream().filter(e -> e.getValue() == null).forEach(order::add);
    changes.entrySet().stream().filter(e -> e.getValue() != null).forEach(order::add);
    var batches = new ArrayList<String>();
    var chunk = new TreeMap<ServicePortName, ServicePortRules>();
    int weight = 0;
    refusedClaims.clear();
    // A full sync's warnings are those of the ports it renders; the others were reported when
    // they came in (and would otherwise pile up for as long as the proxy runs).
    warnings.clear();
    for (var entry : order) {
      int w = weight(entry.getKey(), entry.getValue());
      if (!chunk.isEmpty() && weight + w > budget) {
        if (!loadInto(batches, chunk)) {
          return Optional.empty();
        }
        chunk.clear();
        weight = 0;
      }
      chunk.put(entry.getKey(), entry.getValue());
      weight += w;
    }
    if (!chunk.isEmpty() && !loadInto(batches, chunk)) {
      return Optional.empty();
    }
    // A port that found a key held, by a port a later transaction removed or changed, claims it
    // now, as a single update would have let it.
    var again = new TreeMap<ServicePortName, ServicePortRules>();
    for (var port : refusedClaims) {
      if (ports.containsKey(port) && !restored.containsKey(port)) {
        again.put(port, ports.get(port));
      }
    }
    refusedClaims.clear();
    if (!again.isEmpty() && !loadInto(batches, again)) {
      return Optional.empty();
    }
    return Optional.of(batches);
  }

  private boolean loadInto(List<String> batches, Map<ServicePortName, ServicePortRules> chunk) {
    var script = update(chunk);
    if (script.isEmpty()) {
      return false;
    }
    if (!script.get().isEmpty()) {
      batches.add(script.get());
    }
    return true;
  }

  /** About the lines a port's change loads: its old and new chains, rules and elements. */
  private int weight(ServicePortName port, ServicePortRules rules) {
    int weight = rules == null ? 0 : linesOf(rules);
    var saved = restored.get(port);
    if (saved != null) {
      weight += saved.ruleAndElementLines();
    } else if (ports.get(port) != null) {
      weight += linesOf(ports.get(port));
    }
    return weight;
  }

  /** A Service port loads a handful of lines, and a few more per endpoint (elements, chains). */
  private static int linesOf(ServicePortRules rules) {
    return 8 + 4 * (rules.clusterOrEmpty().size() + rules.localOrEmpty().size());
  }

  /**
   * Forgets the stale chains and sets, for when the kernel's table was replaced whole, or may not
   * hold what this assembler thinks (a transaction failed): the next full sync finds them again.
   */
  public void forgetStale() {
    staleChains.clear();
    staleSets.clear();
  }

  private String keepingAffinity(KernelTable kernel, Set<String> countingKeys) {
    var out = new NftTransaction(text, fullScriptLengthEstimate());
    out.addTable();
    var now = clock.instant();
    var countingSets = config.countsLocality() ? NftNames.SERVICE_SETS : List.<String>of();
    kernel
        .chains()
        .forEach(
            (chain, kind) -> {
              if (!kind.empty()) {
                out.flushChain(chain);
              }
            });
    kernel
        .chains()
        .forEach(
            (chain, kind) -> {
              boolean wanted =
                  chainDeclarations.containsKey(chain)
                      || fixed.chains().contains(chain)
                      || chain.equals(GENERATION_CHAIN);
              if (kind.base() || (kind.empty() && !wanted)) {
                out.deleteChain(chain);
              } else if (!wanted) {
                // Flushed above; a later transaction can delete it.
                staleChains.put(chain, now);
                kernelChains.put(chain, List.of());
              }
            });
    kernel
        .sets()
        .forEach(
            (set, kind) -> {
              boolean kept =
                  kind.equals("set")
                      && (set.startsWith(NftNames.AFFINITY_PREFIX)
                              && setDeclarations.containsKey(set)
                          || countingSets.contains(set)
                          || config.countsLocality() && set.equals(NftNames.COUNTERS)
                          || set.equals(GENERATION_SET));
              if (!kept) {
                out.deleteSet(NftSet.Kind.of(kind), set);
              }
            });
    // After the maps whose elements might refer to them; a counter still wanted keeps its count.
    for (var counter : kernel.counters()) {
      if (!fixed.counters().contains(counter)) {
        out.deleteCounter(counter);
      }
    }
    out.appendWritten(fixed.body());
    appendFragments(out);
    // Added first, so the delete finds it whichever sets the kernel has it in.
    var unwanted = new ArrayList<String>();
    var wanted = elementUses.get(NftNames.serviceSet(dev.proxima.proxy.model.Locality.NODE));
    for (var key : countingKeys) {
      if (wanted == null || !wanted.contains(NftElement.of(key))) {
        unwanted.add(key);
      }
    }
    for (var set : countingSets) {
      if (kernel.sets().containsKey(set)) {
        out.addKeys(set, unwanted);
        out.deleteKeys(set, unwanted);
      }
    }
    return out.toString();
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
      var saved = restored.remove(port);
      ServiceFragment oldParts = null;
      if (saved != null) {
        oldParts = saved.fragment();
      } else if (ports.get(port) != null) {
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
    out.appendWritten(fixedScript);
    appendFragments(out);
    return out.toString();
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
    if (recorder != null && rules != null) {
      recorder.record(SavedRuleset.port(port, SavedRuleset.digest(rules), parts));
    }
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
          refusedClaims.add(port);
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
    if (recorder != null) {
      recorder.record(SavedRuleset.gone(port));
    }
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
