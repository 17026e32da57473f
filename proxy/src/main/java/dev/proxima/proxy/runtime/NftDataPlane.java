package dev.proxima.proxy.runtime;

import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.nft.KernelTable;
import dev.proxima.proxy.render.nft.NftCounters;
import dev.proxima.proxy.render.nft.NftNames;
import dev.proxima.proxy.render.nft.NftSyntax;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nftables mode: table {@code proxima}, replaced or patched in one nft transaction. A full sync
 * replaces the table's contents in place, keeping the ClientIP affinity sets it still needs. Chains
 * and sets that stop being used are emptied at once and deleted by {@link #removeStale()} a second
 * or more later, in a transaction of their own.
 */
public final class NftDataPlane implements DataPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NftDataPlane.class);

  /** After the kernel refuses a stale cleanup, how long until it is tried again. */
  static final Duration STALE_RETRY = Duration.ofSeconds(30);

  /** At most this many names of what a refused cleanup deleted go into its log line. */
  private static final int NAMES_LOGGED = 10;

  private final IpFamily family;
  private final RuleSettings settings;
  private final RuleLoader nft;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private RulesetAssembler assembler;

  /** The counted Service ports by counter stem, read at scrape time: the assembler's live view. */
  private volatile Map<String, ServicePortName> countedPorts = Map.of();

  /**
   * True once a transaction loaded; false from a failed one until the next full sync loads, since
   * the kernel may then not hold what the assembler thinks and no stale chain is deleted on its
   * word.
   */
  private boolean kernelAsAssembled;

  private List<String> serviceCidrs = List.of();
  private int linesLoaded;

  public NftDataPlane(
      IpFamily family, RuleSettings settings, RuleLoader nft, ProxyMetrics metrics) {
    this(family, settings, nft, metrics, Clock.systemUTC());
  }

  /**
   * @param clock dates the chains and sets that stop being used, which are deleted a second later
   */
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
    // Let the old state go first: at scale two assemblers side by side cost tens of MiB of heap.
    // Should the new one fail to build, no assembler means the next sync is a full one again.
    assembler = null;
    linesLoaded = 0;
    kernelAsAssembled = false;
    assembler =
        new RulesetAssembler(settings.forFamily(family, nodePortAddresses, nodePodCidrs), clock);
    countedPorts = assembler.countedPorts();
    assembler.serviceCidrs(serviceCidrs);
    var kernel = kernelTable();
    if (kernel == null) {
      return load(assembler.replaceAll(ports));
    }
    var keeping = assembler.replaceAll(ports, kernel);
    linesLoaded = Lines.count(keeping);
    var result = nft.apply(keeping);
    if (result.succeeded()) {
      kernelAsAssembled = true;
      metrics.nftablesStale(family, assembler.stalePending());
      return Outcome.LOADED;
    }
    // Should this kernel refuse the in-place replacement, a whole new table still gets the rules
    // in now; only the affinity memory is lost, as it always was before.
    LOG.atWarn()
        .addKeyValue("family", family)
        .addKeyValue("error", result.summary())
        .log("Could not replace the rules in place; replacing the whole table, affinity resets");
    // The whole table goes, stale chains with it.
    assembler.forgetStale();
    return load(assembler.fullScript());
  }

  @Override
  public boolean countsPerServicePort() {
    return settings.observeLocality().counts();
  }

  @Override
  public Optional<ConnectionCounts> connectionCounts() {
    return nft.counters(NftSyntax.family(family), NftNames.TABLE)
        .map(NftCounters::parse)
        .flatMap(
            counts ->
                ConnectionCounts.from(counts, NftCounters::of, NftCounters.withoutEndpoints())
                    .map(
                        node ->
                            new ConnectionCounts(
                                node.byLocality(),
                                node.withoutEndpoints(),
                                NftCounters.servicePorts(counts, countedPorts))));
  }

  /** The table as the kernel has it now, or null to replace it whole (no table yet). */
  private KernelTable kernelTable() {
    return nft.declarations(NftSyntax.family(family), NftNames.TABLE)
        .map(KernelTable::parse)
        .orElse(null);
  }

  @Override
  public Outcome update(Map<ServicePortName, ServicePortRules> changes) {
    linesLoaded = 0;
    if (assembler == null) {
      return Outcome.NEEDS_FULL;
    }
    // Empty when a rule needs a map the kernel cannot type from its own state.
    var ports = assembler.update(changes);
    if (ports.isEmpty()) {
      kernelAsAssembled = false;
      return Outcome.NEEDS_FULL;
    }
    var outcome = load(ports.get() + assembler.serviceCidrs(serviceCidrs));
    if (outcome.status() != Status.FAILED) {
      // Under steady churn the runner may never be idle: what is due goes after each sync too.
      int lines = linesLoaded;
      removeStale();
      linesLoaded = lines;
    }
    return outcome;
  }

  /**
   * Deletes the chains and sets that have been stale for a second or more, in a transaction of
   * their own. Should the kernel refuse it, they stay recorded and are tried again later; the rules
   * in use are untouched either way.
   */
  @Override
  public void removeStale() {
    if (assembler == null || !kernelAsAssembled) {
      return;
    }
    var due = assembler.staleCleanup();
    if (due.isEmpty()) {
      return;
    }
    var cleanup = due.get();
    var result = nft.apply(cleanup.script());
    if (!result.succeeded()) {
      assembler.staleKept(cleanup, STALE_RETRY);
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("chains", named(cleanup.chains()))
          .addKeyValue("sets", named(cleanup.sets()))
          .addKeyValue("error", result.summary())
          .addKeyValue("retryInSeconds", STALE_RETRY.toSeconds())
          .log("Could not delete unused chains and sets; they stay, emptied, and are retried");
      metrics.nftablesStale(family, assembler.stalePending());
      return;
    }
    assembler.staleDeleted(cleanup);
    LOG.atDebug()
        .addKeyValue("family", family)
        .addKeyValue("chains", cleanup.chains().size())
        .addKeyValue("sets", cleanup.sets().size())
        .addKeyValue("stillStale", assembler.stalePending())
        .log("Deleted unused chains and sets");
    metrics.nftablesStale(family, assembler.stalePending());
  }

  /** The first names of a list, and how many more there are. */
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

  private Outcome load(String transaction) {
    if (transaction.isEmpty()) {
      return Outcome.UNCHANGED;
    }
    linesLoaded = Lines.count(transaction);
    var result = nft.apply(transaction);
    if (result.succeeded()) {
      kernelAsAssembled = true;
      metrics.nftablesStale(family, assembler.stalePending());
      return Outcome.LOADED;
    }
    kernelAsAssembled = false;
    assembler.forgetStale();
    metrics.nftablesFailed(family);
    return Outcome.failed(result.summary());
  }
}
