package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
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
 * One family's table, kept between syncs as per-Service-port fragments, so a partial sync renders
 * and loads only what changed. The counting sets survive a full sync, and with them the counts.
 */
public final class RulesetAssembler {
  /** How long a chain or set stays stale before {@link #staleCleanup()} deletes it. */
  public static final Duration STALE_DELAY = Duration.ofSeconds(1);

  private final FamilySettings config;
  private final Clock clock;
  private final int generation;
  private final FixedLayout fixed;
  private final GenerationSwitch switcher;
  private final NftText text;
  private final TableModel model;
  private final LoadedObjects loaded = new LoadedObjects();
  private final FullSyncBatches batches;

  /** Pass it to {@link #staleDeleted} once the kernel took it, else to {@link #staleKept}. */
  public record StaleCleanup(NftTransaction transaction, List<String> chains, List<String> sets) {}

  /**
   * Deletes an earlier generation once this one's switch is loaded; {@code chains} after all of
   * {@code first}, as older kernels notice only after a transaction that no map refers to a chain.
   */
  public record Deleting(List<NftTransaction> first, List<NftTransaction> chains) {}

  /** Takes a cold rebuild's transactions in load order, each as soon as it is written. */
  @FunctionalInterface
  public interface TransactionSink {
    /** False once loading stopped; {@code alone} false for a batch that may load beside others. */
    boolean accept(NftTransaction transaction, boolean alone);
  }

  public enum ColdRebuild {
    WRITTEN,
    STOPPED,
    /** A defect of {@link RenderPass#sharedChainsOf}: load {@link #inOneTransaction} instead. */
    SHARED_CHAINS_DIFFER
  }

  public RulesetAssembler(FamilySettings config) {
    this(config, Clock.systemUTC());
  }

  public RulesetAssembler(FamilySettings config, Clock clock) {
    this(config, clock, 0);
  }

  // The generation names the objects (NftText), so a full sync can build beside the old ones.
  public RulesetAssembler(FamilySettings config, Clock clock, int generation) {
    this(config, clock, generation, NameHash::of);
  }

  /** With {@code nameHash} for a test to make chain names collide. */
  RulesetAssembler(
      FamilySettings config, Clock clock, int generation, UnaryOperator<String> nameHash) {
    this.config = config;
    this.clock = clock;
    this.generation = generation;
    this.fixed = new FixedLayout(config);
    this.switcher = new GenerationSwitch(fixed, config.family(), generation);
    this.text = switcher.text;
    this.model = new TableModel(config, fixed, nameHash);
    this.batches = new FullSyncBatches(model, switcher);
  }

  public String replaceAll(List<ServicePortRules> ports) {
    model.rebuild(sorted(ports), null);
    loaded.reset(model.chainRules, model.setDeclarations.keySet());
    return fullScript();
  }

  public List<String> replaceAllInBatches(List<ServicePortRules> ports, int budget) {
    var batches = new ArrayList<String>();
    if (replaceAllInBatches(ports, budget, (batch, alone) -> batches.add(batch.toString()))
        != ColdRebuild.WRITTEN) {
      throw new IllegalStateException("A port needs a shared chain the first transaction lacks");
    }
    return batches;
  }

  /** Transactions of about {@code budget} lines; every port is rendered whatever the sink says. */
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
    var ending = batches.write(sorted, budget, sink, shared);
    loaded.reset(model.chainRules, model.setDeclarations.keySet());
    return ending;
  }

  public NftTransaction inOneTransaction() {
    return batches.inOneTransaction();
  }

  /** The transaction for these changes (null removes a port), or empty when only a full can. */
  public Optional<NftTransaction> update(Map<ServicePortName, ServicePortRules> changes) {
    return PartialSync.apply(model, loaded, text, clock.instant(), changes);
  }

  /** The transaction for the Service CIDRs that came or went; other families' are left out. */
  public NftTransaction serviceCidrs(List<String> cidrs) {
    var parsed = new ArrayList<Cidr>();
    for (var cidr : cidrs) {
      NftAddresses.parseCidr(cidr, config.family()).ifPresent(parsed::add);
    }
    var wanted = Cidr.outermost(parsed).stream().map(Object::toString).toList();
    var removed = model.serviceCidrs.stream().filter(cidr -> !wanted.contains(cidr)).toList();
    var added = wanted.stream().filter(cidr -> !model.serviceCidrs.contains(cidr)).toList();
    model.serviceCidrs = wanted;
    // Deletes first: a range that grew replaces the smaller one, and interval sets refuse overlaps.
    var out = new NftTransaction(text).deleteKeys(NftNames.SERVICE_CIDRS, removed);
    return out.addKeys(NftNames.SERVICE_CIDRS, added);
  }

  /** Deletes a bounded number of the chains and sets stale for {@link #STALE_DELAY} or longer. */
  public Optional<StaleCleanup> staleCleanup() {
    return loaded.cleanup(text, clock.instant().minus(STALE_DELAY));
  }

  public void staleDeleted(StaleCleanup cleanup) {
    loaded.deleted(cleanup.chains(), cleanup.sets());
  }

  public void staleKept(StaleCleanup cleanup, Duration retry) {
    loaded.kept(cleanup.chains(), cleanup.sets(), clock.instant().plus(retry).minus(STALE_DELAY));
  }

  public int stalePending() {
    return loaded.pending();
  }

  /** Forgets the stale objects, when the kernel may not hold what this assembler thinks. */
  public void forgetStale() {
    loaded.forgetStale();
  }

  public String fullScript() {
    var out = new NftTransaction(text, model.length(text));
    if (generation == 0) {
      out.appendWritten(fixed.script);
      model.appendTo(out);
      return out.toString();
    }
    switcher.appendFixedObjects(out.replaceTable());
    model.appendTo(out);
    return out.append(switcher.switchTo()).toString();
  }

  public int generation() {
    return generation;
  }

  /** {@code countingKeys}: what the kernel's counting sets hold. */
  public Deleting deletingEarlier(KernelTable before, Set<String> countingKeys, int budget) {
    return switcher.deletingEarlier(before, countingKeys, model, budget);
  }

  public String kernelSetName(String set) {
    return text.set(set);
  }

  /** Whether the set of this kernel name holds state kept from an earlier generation. */
  public boolean keeps(String kernelSet) {
    return switcher.keeps(kernelSet, model);
  }

  /** The Service ports counted per locality: a live view, safe to read from another thread. */
  public Set<ServicePortName> countedPorts() {
    return Collections.unmodifiableSet(model.countedPorts);
  }

  /** Each counting key to its port: a live view, safe from another thread. */
  public Map<String, ServicePortName> countingOwners() {
    return Collections.unmodifiableMap(model.countingOwners);
  }

  /** Inputs left out since the last full sync, such as keys another port already holds. */
  public List<String> warnings() {
    return List.copyOf(model.warnings);
  }

  private static List<ServicePortRules> sorted(List<ServicePortRules> ports) {
    var sorted = new ArrayList<>(ports);
    sorted.sort(Comparator.comparing(rules -> rules.port().name()));
    return sorted;
  }
}
