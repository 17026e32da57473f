package dev.proxima.proxy.dataplane;

import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftSyntax;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.nft.NftCounters;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nftables mode: table {@code proxima}. A partial sync is one transaction. A full sync (a
 * restart's first too) builds the whole table beside the kernel's under a new generation's names,
 * in bounded transactions of whole Service ports, switches the base chains to it in one small one,
 * then deletes the old objects; it reads only the names of the table's objects. Stateful sets
 * (ClientIP affinity, per-Service counts) and the named counters keep their names across
 * generations, so clients keep their endpoints and counts go on. What a partial sync stops using is
 * emptied at once and deleted by {@link #removeStale()} a second or more later.
 */
public final class NftDataPlane implements DataPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NftDataPlane.class);

  /** After the kernel refuses a stale cleanup, how long until it is tried again. */
  static final Duration STALE_RETRY = Duration.ofSeconds(30);

  /**
   * About the most lines of one full-sync transaction: ~0.2 s at nft's ~70,000 lines/s on 2 cores,
   * well under the 1 s that holds the nftables lock too long. A larger Service port goes whole.
   */
  static final int TRANSACTION_LINES = 15_000;

  private static final int NAMES_LOGGED = 10;

  private final IpFamily family;
  private final RuleSettings settings;
  private final RuleLoader nft;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private RulesetAssembler assembler;

  // Read at scrape time: the assembler's live views.
  private volatile Set<ServicePortName> countedPorts = Set.of();
  private volatile Map<String, ServicePortName> countingOwners = Map.of();

  /**
   * False from a failed transaction until the next full sync loads: the kernel may then not hold
   * what the assembler thinks, so no stale chain is deleted on its word.
   */
  private boolean kernelAsAssembled;

  /** The generation the base chains jump to since this process's last switch; kept on failure. */
  private Integer liveGeneration;

  private List<String> serviceCidrs = List.of();
  private int linesLoaded;
  private int longestTransaction;

  public NftDataPlane(
      IpFamily family, RuleSettings settings, RuleLoader nft, ProxyMetrics metrics, Clock clock) {
    this.clock = clock;
    this.family = family;
    this.settings = settings;
    this.nft = nft;
    this.metrics = metrics;
  }

  @Override
  public Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs) {
    var config = settings.forFamily(family, nodePortAddresses, nodePodCidrs);
    linesLoaded = 0;
    longestTransaction = 0;
    var listing = nft.table(NftSyntax.family(family), NftNames.TABLE);
    var before = listing.orElse(KernelTable.none());
    int generation = before.freeGeneration();
    if (listing.isEmpty() && liveGeneration != null && liveGeneration == generation) {
      // nft could not list the table: never build into the names the base chains jump to.
      generation++;
    }
    // Let the old state go first: two assemblers at scale cost tens of MiB of heap. Should the new
    // one fail to build, no assembler means the next sync is full again.
    assembler = null;
    kernelAsAssembled = false;
    assembler = new RulesetAssembler(config, clock, generation);
    countedPorts = assembler.countedPorts();
    countingOwners = assembler.countingOwners();
    assembler.serviceCidrs(serviceCidrs);
    var outcome = loadBeside(ports);
    if (outcome.status() == Status.FAILED) {
      // The kernel may still run the old rules: no assembler stands for it; the next sync is full.
      assembler = null;
      kernelAsAssembled = false;
      return outcome;
    }
    liveGeneration = generation;
    int lines = linesLoaded;
    deleteEarlier(before);
    linesLoaded = lines;
    return outcome;
  }

  /**
   * Deletes what the table held before the switch but what the new objects keep, in bounded
   * transactions; what a refusal leaves is unreachable, and the next full sync deletes it.
   */
  private void deleteEarlier(KernelTable before) {
    var deleting = assembler.deletingEarlier(before, countingKeysIn(before), TRANSACTION_LINES);
    var refused = loadAll(deleting.first());
    if (refused == null) {
      refused = loadAll(deleting.chains());
    }
    if (refused != null) {
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("error", refused.summary())
          .log(
              "Could not delete what the previous rules left; it is unused, and the next full"
                  + " sync deletes it");
    }
  }

  /**
   * The keys the kernel's counting sets hold, so that those no port wants go: a full sync's one
   * listing of elements, of those sets only (nft fetches each set alone).
   */
  private Set<String> countingKeysIn(KernelTable before) {
    var keys = new HashSet<String>();
    for (var set : NftNames.SERVICE_SETS) {
      if (before.sets().containsKey(set) && assembler.keeps(set)) {
        nft.elements(NftSyntax.family(family), NftNames.TABLE, set)
            .ifPresent(elements -> elements.forEach(element -> keys.add(element.key())));
      }
    }
    return keys;
  }

  /** The kernel's refusal, or null when it took them all. */
  private Nft.Result loadAll(List<NftTransaction> transactions) {
    for (var transaction : transactions) {
      longestTransaction = Math.max(longestTransaction, transaction.lines());
      var result = nft.apply(transaction);
      if (!result.succeeded()) {
        return result;
      }
    }
    return null;
  }

  /**
   * Builds the table beside the kernel's and switches to it, loading each transaction while the
   * next is rendered ({@link LoadPipeline}) up to the first refusal; no packet meets any of it
   * before the switch. Should the first transaction lack a shared chain a port needs (a defect of
   * {@code RenderPass.sharedChainsOf}), the table goes in one transaction instead, still beside the
   * old.
   */
  private Outcome loadBeside(List<ServicePortRules> ports) {
    var load = new Loading();
    var pipeline =
        new LoadPipeline<NftTransaction>(
            "nft-load-" + family.name().toLowerCase(Locale.ROOT), load::transaction);
    RulesetAssembler.ColdRebuild written;
    boolean tookAll = false;
    try {
      written =
          assembler.replaceAllInBatches(
              ports, TRANSACTION_LINES, (batch, alone) -> pipeline.offer(batch));
    } finally {
      // Also when rendering threw: the loader must not outlive the sync.
      tookAll = pipeline.finish();
    }
    if (!tookAll && load.refusal == null) {
      // Interrupted (the proxy is stopping): some batches may not have loaded, and none refused.
      return Outcome.failed("loading the new table was interrupted");
    }
    if (written == RulesetAssembler.ColdRebuild.SHARED_CHAINS_DIFFER && load.refusal == null) {
      LOG.atError()
          .addKeyValue("family", family)
          .addKeyValue("transactionsLoaded", load.transactions)
          .log(
              "The new table's first transaction lacks a shared chain a Service port needs;"
                  + " loading the table in one transaction instead");
      // Over the unreachable part already loaded: a chain's second copy of rules follows a verdict
      // that ends the first. The next full sync builds a clean table beside it.
      load.transaction(assembler.inOneTransaction());
    }
    return load.outcome();
  }

  /** {@link #outcome} runs on the sync's thread once every transaction loaded or one refused. */
  private final class Loading {
    private int lines;
    private int transactions;
    private Nft.Result refusal;

    boolean transaction(NftTransaction script) {
      if (script.isEmpty()) {
        return true;
      }
      synchronized (this) {
        int count = script.lines();
        lines += count;
        linesLoaded = lines;
        longestTransaction = Math.max(longestTransaction, count);
      }
      var result = nft.apply(script);
      synchronized (this) {
        if (!result.succeeded()) {
          if (refusal == null) {
            refusal = result;
          }
          return false;
        }
        transactions++;
      }
      return true;
    }

    synchronized Outcome outcome() {
      if (refusal != null) {
        kernelAsAssembled = false;
        if (assembler != null) {
          assembler.forgetStale();
        }
        metrics.nftablesFailed(family);
        return Outcome.failed(refusal.summary());
      }
      if (transactions == 0) {
        return Outcome.UNCHANGED;
      }
      kernelAsAssembled = true;
      metrics.nftablesStale(family, assembler.stalePending());
      return Outcome.LOADED;
    }
  }

  @Override
  public boolean countsPerServicePort() {
    return settings.observeLocality().counts();
  }

  @Override
  public Optional<ConnectionCounts> connectionCounts() {
    var listing = nft.counters(NftSyntax.family(family), NftNames.TABLE, countingSets());
    if (listing.isEmpty()) {
      return Optional.empty();
    }
    return ConnectionCounts.from(
            NftCounters.parse(listing.get()), NftCounters::of, NftCounters.withoutEndpoints())
        .map(
            node ->
                new ConnectionCounts(
                    node.byLocality(),
                    node.withoutEndpoints(),
                    NftCounters.servicePortCounts(listing.get(), countingOwners, countedPorts)));
  }

  private List<String> countingSets() {
    if (!settings.observeLocality().counts()) {
      return List.of();
    }
    var sets = new java.util.ArrayList<>(List.of(NftNames.COUNTERS));
    sets.addAll(NftNames.SERVICE_SETS);
    return sets;
  }

  @Override
  public Outcome update(Map<ServicePortName, ServicePortRules> changes) {
    linesLoaded = 0;
    if (assembler == null) {
      return Outcome.NEEDS_FULL;
    }
    // Empty when a rule needs a map the kernel cannot type from its own state: never for an
    // endpoint change, a new endpoint count included (its lb-N chain and map load together).
    var ports = assembler.update(changes);
    if (ports.isEmpty()) {
      kernelAsAssembled = false;
      return Outcome.NEEDS_FULL;
    }
    var load = new Loading();
    load.transaction(ports.get().append(assembler.serviceCidrs(serviceCidrs)));
    var outcome = load.outcome();
    if (outcome.status() != Status.FAILED) {
      // Under steady churn the runner may never be idle, so what is due goes after each sync too.
      int lines = linesLoaded;
      removeStale();
      linesLoaded = lines;
    }
    return outcome;
  }

  /** In bounded transactions; what the kernel refuses is tried again later. */
  @Override
  public void removeStale() {
    if (assembler == null || !kernelAsAssembled) {
      return;
    }
    for (var due = assembler.staleCleanup(); due.isPresent(); due = assembler.staleCleanup()) {
      var cleanup = due.get();
      var result = nft.apply(cleanup.transaction());
      if (!result.succeeded()) {
        assembler.staleKept(cleanup, STALE_RETRY);
        LOG.atWarn()
            .addKeyValue("family", family)
            .addKeyValue("chains", named(cleanup.chains()))
            .addKeyValue("sets", named(cleanup.sets()))
            .addKeyValue("error", result.summary())
            .addKeyValue("retryInSeconds", STALE_RETRY.toSeconds())
            .log("Could not delete unused chains and sets; they stay, emptied, and are retried");
        break;
      }
      assembler.staleDeleted(cleanup);
      LOG.atDebug()
          .addKeyValue("family", family)
          .addKeyValue("chains", cleanup.chains().size())
          .addKeyValue("sets", cleanup.sets().size())
          .addKeyValue("stillStale", assembler.stalePending())
          .log("Deleted unused chains and sets");
    }
    metrics.nftablesStale(family, assembler.stalePending());
  }

  private static String named(List<String> names) {
    if (names.size() <= NAMES_LOGGED) {
      return String.join(",", names);
    }
    return String.join(",", names.subList(0, NAMES_LOGGED))
        + " and "
        + (names.size() - NAMES_LOGGED)
        + " more";
  }

  @Override
  public void serviceCidrs(List<String> cidrs) {
    serviceCidrs = List.copyOf(cidrs);
  }

  @Override
  public int linesLoaded() {
    return linesLoaded;
  }

  @Override
  public List<String> warnings() {
    return assembler == null ? List.of() : assembler.warnings();
  }

  /**
   * Whether a rule still refers to this generation's ServiceCIDR set, which a flushed ruleset or
   * table or another process's full sync breaks: one small nft call, no read-back, so an edit of
   * single rules is not seen. When nft cannot tell, the next check asks again.
   */
  @Override
  public boolean intact() {
    if (assembler == null || !kernelAsAssembled) {
      return true; // nothing loaded yet, or the next sync rebuilds anyway
    }
    var referenced =
        nft.referencedIfKnown(
            NftSyntax.family(family),
            NftNames.TABLE,
            assembler.kernelSetName(NftNames.SERVICE_CIDRS));
    if (referenced.isEmpty()) {
      LOG.atDebug().addKeyValue("family", family).log("nft could not tell whether the table holds");
      return true;
    }
    if (!referenced.get()) {
      kernelAsAssembled = false;
    }
    return referenced.get();
  }

  int longestTransaction() {
    return longestTransaction;
  }
}
