package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.NameHash;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One family's ruleset, kept as per-Service-port fragments ({@link TableModel}), so a sync renders
 * only the ports that changed and loads only what that changes in the kernel ({@link PartialSync}).
 * A full sync builds every object beside what the table holds, under a generation's names, in
 * bounded transactions ({@link FullSyncBatches}), and switches to them ({@link GenerationSwitch}).
 * What a partial sync stops using is emptied at once and deleted a little later ({@link
 * LoadedObjects}). A counted port's connections are counted in the elements of the {@code
 * service-<locality>} sets, which a full sync keeps, so the counts survive it.
 */
public final class RulesetAssembler {
  /** How long a chain or set stays stale before {@link #staleCleanup()} deletes it. */
  public static final Duration STALE_DELAY = Duration.ofSeconds(1);

  private final FamilySettings config;
  private final Clock clock;
  private final int generation;
  private final FixedTable fixed;
  private final GenerationSwitch switcher;
  private final NftText text;
  private final TableModel model;
  private final LoadedObjects loaded = new LoadedObjects();
  private final FullSyncBatches batches;

  /**
   * A transaction deleting stale chains and sets; pass it to {@link #staleDeleted} once the kernel
   * took it, or to {@link #staleKept} when it refused it.
   */
  public record StaleCleanup(String script, List<String> chains, List<String> sets) {}

  /**
   * What deletes an earlier generation once this one's switch is loaded, one statement a line.
   *
   * @param first the chains emptied, the sets and maps deleted, the counting keys dropped
   * @param chains the chains and named counters deleted, in transactions after every one of {@code
   *     first}: older kernels notice only after a transaction that a map no longer refers to a
   *     chain
   */
  public record Deleting(List<String> first, List<String> chains) {}

  /**
   * Where the transactions of a cold rebuild go, in load order, each as soon as it is written, so
   * the kernel can load one while the next is rendered.
   */
  @FunctionalInterface
  public interface TransactionSink {
    /**
     * Takes the next transaction; false once loading stopped, and no later one is wanted.
     *
     * @param alone true when it must load after every earlier one and before any later one; false
     *     for a port batch that only adds whole Service ports of its own
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
     * The shared chains of the first transaction are not those the render uses: nothing after the
     * port that showed it was written, and the caller must rebuild another way ({@link
     * #inOneTransaction}). Never happens while {@link RenderPass#sharedChainsOf} follows the
     * render.
     */
    SHARED_CHAINS_DIFFER
  }

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
   * @param generation whose names the objects get ({@link NftText}): a full sync over a table that
   *     holds objects already builds its own beside them under names no object there has
   */
  public RulesetAssembler(FamilySettings config, Clock clock, int generation) {
    this(config, clock, generation, NameHash::of);
  }

  /**
   * @param nameHash hashes the names of a port's own chains, for a test to make them collide
   */
  RulesetAssembler(
      FamilySettings config, Clock clock, int generation, UnaryOperator<String> nameHash) {
    this.config = config;
    this.clock = clock;
    this.generation = generation;
    var layout = new FixedLayout(config);
    this.fixed = layout.build();
    this.switcher = new GenerationSwitch(layout, config.family(), generation);
    this.text = switcher.text();
    this.model = new TableModel(config, fixed, nameHash);
    this.batches = new FullSyncBatches(model, switcher, fixed);
  }

  /** Replaces every fragment, e.g. for a full sync; returns the script that replaces the table. */
  public String replaceAll(List<ServicePortRules> ports) {
    rebuild(sorted(ports), null);
    return fullScript();
  }

  /**
   * {@link #replaceAllInBatches(List, int, TransactionSink)}, collected.
   *
   * @throws IllegalStateException should a port need a shared chain the first transaction lacks
   */
  public List<String> replaceAllInBatches(List<ServicePortRules> ports, int budget) {
    var batches = new ArrayList<String>();
    if (replaceAllInBatches(ports, budget, (batch, alone) -> batches.add(batch))
        != ColdRebuild.WRITTEN) {
      throw new IllegalStateException("A port needs a shared chain the first transaction lacks");
    }
    return batches;
  }

  /**
   * Replaces every fragment, and hands {@code sink} the transactions that build the table beside
   * what it holds and then switch to it, each of about {@code budget} lines or fewer (one Service
   * port larger than that goes alone). Every port is rendered whatever the sink says, so the
   * assembler holds the whole new state at the end.
   */
  public ColdRebuild replaceAllInBatches(
      List<ServicePortRules> ports, int budget, TransactionSink sink) {
    var sorted = sorted(ports);
    return replaceAllInBatches(sorted, budget, sink, RenderPass.sharedChainsOf(config, sorted));
  }

  /** With the first transaction's shared chains given, for a test to give the wrong ones. */
  ColdRebuild replaceAllInBatches(
      List<ServicePortRules> sorted,
      int budget,
      TransactionSink sink,
      RenderPass.SharedChains shared) {
    var ending = batches.write(sorted, budget, sink::accept, shared);
    loaded.reset(model.chainRules, model.setDeclarations.keySet());
    return ColdRebuild.valueOf(ending.name());
  }

  /** Every object beside what the kernel holds, then the switch, in one transaction. */
  public String inOneTransaction() {
    return batches.inOneTransaction();
  }

  /**
   * Applies changes to some ports (a null value removes the port) and returns the transaction that
   * takes the kernel there, or empty when only a full replacement can; the caller must then call
   * {@link #replaceAll}. An endpoint change, a new endpoint count included, is always a delta.
   */
  public Optional<String> update(Map<ServicePortName, ServicePortRules> changes) {
    return PartialSync.apply(model, loaded, text, clock.instant(), changes);
  }

  /**
   * Sets the Service CIDRs (any family; the other family's and malformed ones are left out) and
   * returns the transaction that takes the kernel's {@code service-cidrs} set there: only the
   * ranges that came or went.
   */
  public String serviceCidrs(List<String> cidrs) {
    var wanted = serviceCidrsOf(config.family(), cidrs);
    var removed = model.serviceCidrs.stream().filter(cidr -> !wanted.contains(cidr)).toList();
    var added = wanted.stream().filter(cidr -> !model.serviceCidrs.contains(cidr)).toList();
    model.serviceCidrs = wanted;
    // Deletes first: a range that grew replaces the smaller one, and interval sets refuse overlaps.
    var out = new NftTransaction(text).deleteKeys(NftNames.SERVICE_CIDRS, removed);
    return out.addKeys(NftNames.SERVICE_CIDRS, added).toString();
  }

  public List<String> serviceCidrsLoaded() {
    return model.serviceCidrs;
  }

  /** {@code family}'s ranges of {@code cidrs}, canonical, the outermost only. */
  public static List<String> serviceCidrsOf(IpFamily family, List<String> cidrs) {
    var parsed = new ArrayList<Cidr>();
    for (var text : cidrs) {
      NftAddresses.parseCidr(text, family).ifPresent(parsed::add);
    }
    return NftAddresses.outermost(parsed).stream().map(Object::toString).toList();
  }

  /**
   * The transaction deleting chains and sets stale for at least {@link #STALE_DELAY}, a bounded
   * number of them, or empty when none is due.
   */
  public Optional<StaleCleanup> staleCleanup() {
    return loaded
        .cleanup(text, clock.instant().minus(STALE_DELAY))
        .map(due -> new StaleCleanup(due.script(), due.chains(), due.sets()));
  }

  /** The kernel took {@code cleanup}: its chains and sets are gone. */
  public void staleDeleted(StaleCleanup cleanup) {
    loaded.deleted(cleanup.chains(), cleanup.sets());
  }

  /** The kernel refused {@code cleanup}: it is due again {@code retry} from now. */
  public void staleKept(StaleCleanup cleanup, Duration retry) {
    loaded.kept(cleanup.chains(), cleanup.sets(), clock.instant().plus(retry).minus(STALE_DELAY));
  }

  /** How many chains and sets are stale: in the kernel, unused, not deleted yet. */
  public int stalePending() {
    return loaded.pending();
  }

  /** Forgets the stale objects, when the kernel may not hold what this assembler thinks. */
  public void forgetStale() {
    loaded.forgetStale();
  }

  /** The complete script replacing the table with the current fragments. */
  public String fullScript() {
    var out = new NftTransaction(text, model.length(text));
    if (generation == 0) {
      out.appendWritten(fixed.script());
      model.appendTo(out);
      return out.toString();
    }
    switcher.appendFixedObjects(out.replaceTable());
    model.appendTo(out);
    return out.append(switcher.switchTo()).toString();
  }

  /** Whose names this assembler's objects have ({@link NftText}). */
  public int generation() {
    return generation;
  }

  /** The hooked chains of this table, which every generation shares. */
  public Set<String> baseChains() {
    return switcher.baseChains;
  }

  /**
   * What deletes the objects {@code before} lists but those this generation keeps.
   *
   * @param countingKeys the keys the kernel's counting sets hold
   */
  public Deleting deletingEarlier(KernelTable before, Set<String> countingKeys) {
    var statements = switcher.deletingEarlier(before, countingKeys, model);
    return new Deleting(statements.get(0), statements.get(1));
  }

  /** The kernel's name of a set or map in this assembler's generation. */
  public String kernelSetName(String set) {
    return text.set(set);
  }

  /**
   * Whether the set of this kernel name holds state this table keeps from an earlier generation.
   */
  public boolean keeps(String kernelSet) {
    return switcher.keeps(kernelSet, model);
  }

  /** The Service ports counted per locality: a live view, safe to read from another thread. */
  public Set<ServicePortName> countedPorts() {
    return Collections.unmodifiableSet(model.countedPorts);
  }

  /** Each counting key to the counted port it counts for: a live view, safe from another thread. */
  public Map<String, ServicePortName> countingOwners() {
    return Collections.unmodifiableMap(model.countingOwners);
  }

  public int countedPortCount() {
    return model.countedPorts.size();
  }

  /** Inputs left out since the last full sync, such as keys another port already holds. */
  public List<String> warnings() {
    return List.copyOf(model.warnings);
  }

  private void rebuild(List<ServicePortRules> sorted, TableModel.Added seen) {
    model.rebuild(sorted, seen);
    loaded.reset(model.chainRules, model.setDeclarations.keySet());
  }

  private static List<ServicePortRules> sorted(List<ServicePortRules> ports) {
    var sorted = new ArrayList<>(ports);
    sorted.sort(Comparator.comparing(rules -> rules.port().name()));
    return sorted;
  }
}
