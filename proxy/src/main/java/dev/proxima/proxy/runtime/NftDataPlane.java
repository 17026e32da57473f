package dev.proxima.proxy.runtime;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.nft.KernelTable;
import dev.proxima.proxy.render.nft.NftCounters;
import dev.proxima.proxy.render.nft.NftNames;
import dev.proxima.proxy.render.nft.NftSyntax;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.SavedRuleset;
import dev.proxima.proxy.render.nft.ServicePortRules;
import dev.proxima.proxy.track.ListedComparison;
import dev.proxima.proxy.track.ObjectVersions;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nftables mode: table {@code proxima}. A partial sync is one transaction. A full sync over a
 * table the proxy knows (it loaded it, or it is the saved one a restart found, verified by the
 * table's marker) loads only the difference, and a new table is built, both in ordered transactions
 * of whole Service ports bounded in size; only a table of unknown state is replaced in place by one
 * transaction, keeping the ClientIP affinity sets it still needs. Chains and sets that stop being
 * used are emptied at once and deleted by {@link #removeStale()} a second or more later, in a
 * transaction of their own.
 */
public final class NftDataPlane implements DataPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NftDataPlane.class);

  /** After the kernel refuses a stale cleanup, how long until it is tried again. */
  static final Duration STALE_RETRY = Duration.ofSeconds(30);

  /**
   * About the most lines one transaction of a full sync holds. Measured on the project's 2-core
   * machines, nft loads about 70,000 lines a second of a large table, so this keeps a transaction
   * near 0.2 s, well under the 1 s that would hold the nftables lock too long, with room for a
   * loaded machine; a Service port larger than this still goes whole, in one transaction.
   */
  static final int TRANSACTION_LINES = 15_000;

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * From this many restored Service ports on, their digests are computed on two threads: below it,
   * starting a thread costs more than it saves.
   */
  public static final int PARALLEL_DIGESTS_FROM = 1_000;

  /** At most this many names of what a refused cleanup deleted go into its log line. */
  private static final int NAMES_LOGGED = 10;

  private final IpFamily family;
  private final RuleSettings settings;
  private final RuleLoader nft;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private RulesetAssembler assembler;

  /** The counted Service ports, read at scrape time: the assembler's live view. */
  private volatile Set<ServicePortName> countedPorts = Set.of();

  /** Each counting key's port, read at scrape time: the assembler's live view. */
  private volatile Map<String, ServicePortName> countingOwners = Map.of();

  /**
   * True once a transaction loaded; false from a failed one until the next full sync loads, since
   * the kernel may then not hold what the assembler thinks and no stale chain is deleted on its
   * word.
   */
  private boolean kernelAsAssembled;

  private List<String> serviceCidrs = List.of();
  private int linesLoaded;
  private int longestTransaction;

  /** Where the loaded ruleset is saved for the next start; null saves nothing. */
  private final SavedRulesetFile saved;

  /** The generation the kernel's marker holds after the latest transaction (with a file). */
  private SavedRuleset.Marker marker;

  /** The saved file is read once, at the first sync of this process. */
  private boolean restoreTried;

  /**
   * Runs every write of {@link #saved}, in order ({@link #savingOn}). After a rebuild the whole
   * file is written there, after the load: rendering every port's record again and hashing its
   * input cost more than the rebuild's own render (0.7 s of a 10,000-Service cold start, 3 s at
   * 10,000 Services x 10 endpoints, with the deployment's C1-only JIT).
   */
  private Executor saving = Runnable::run;

  /**
   * The kernel's marker, the proof of a table to take up (without one the saved file is not read at
   * all), read on a thread of its own since {@link #starting()}, while the informers list: with
   * {@code nft list set} of the marker set and a check that rules still refer to it, 15–45 ms at
   * 44,000 Services, which a restart's first sync no longer waits for. ({@code nft list tables}
   * takes 1.2 s there with nft 1.0.6.) Only a take-up trusts this read: another tool could change
   * the table after it, as after any read, and the full sync that plans right after a take-up reads
   * the marker again and rebuilds a table that is no longer the saved one; a first sync that plans
   * reads it again beside its plan.
   */
  private CompletableFuture<Optional<SavedRuleset.Marker>> markerAtStart;

  /**
   * What the saved file says its table was planned from, read on a thread of its own since {@link
   * #starting()} once the kernel is known to have a table, for {@link #takeUp}; null once taken.
   */
  private CompletableFuture<Optional<ReadProvenance>> provenanceReading;

  /** Where the families' saved stamps become one instance when equal. */
  private FamiliesSavedStamps familiesStamps = new FamiliesSavedStamps();

  /** What the saved file says its table was planned from, and its stamps, counted. */
  private record ReadProvenance(SavedRuleset.Provenance file, ObjectVersions.Saved versions) {}

  /** What the next load's Services were planned from ({@link #planned}); null once saved. */
  private PlannedObjects planned;

  /** What the saved file says the table was planned from; used on the saving thread only. */
  private final SavedProvenance provenance = new SavedProvenance();

  /**
   * The saved file being read on a thread of its own since {@link #fullSyncStarting}, for the first
   * sync; null before, and once that sync took it.
   */
  private CompletableFuture<Optional<SavedRuleset.Contents>> reading;

  /**
   * The assembler being restored from {@link #reading} for {@link #restoringFor}, on a thread of
   * its own since {@link #fullSyncStarting}: while the proxier plans every Service.
   */
  private CompletableFuture<Optional<Restored>> restoring;

  private FamilySettings restoringFor;

  /**
   * The kernel's marker, being read on a thread of its own since {@link #fullSyncStarting}: nft
   * 1.0.6 fetches every set element of the table to list one chain, about 0.4 s at 10,000 Services,
   * so the first sync reads it while the proxier plans.
   */
  private CompletableFuture<Optional<SavedRuleset.Marker>> markerReading;

  /**
   * What the saved file says of the table (its generation and how many Service ports), and the
   * assembler it restores: null when it was rendered with other settings. The parsed file itself is
   * not kept: the assembler holds its records.
   */
  private record Restored(
      SavedRuleset.Marker marker,
      int ports,
      RulesetAssembler assembler,
      String basis,
      Map<ObjectKey, String> versions) {}

  public NftDataPlane(
      IpFamily family, RuleSettings settings, RuleLoader nft, ProxyMetrics metrics) {
    this(family, settings, nft, metrics, Clock.systemUTC());
  }

  /**
   * @param clock dates the chains and sets that stop being used, which are deleted a second later
   */
  public NftDataPlane(
      IpFamily family, RuleSettings settings, RuleLoader nft, ProxyMetrics metrics, Clock clock) {
    this(family, settings, nft, metrics, clock, null);
  }

  /**
   * @param stateDirectory where the loaded ruleset is saved, so a restarted proxy loads only what
   *     changed while it was away; null saves nothing
   */
  public NftDataPlane(
      IpFamily family,
      RuleSettings settings,
      RuleLoader nft,
      ProxyMetrics metrics,
      Clock clock,
      Path stateDirectory) {
    this.saved = stateDirectory == null ? null : new SavedRulesetFile(stateDirectory, family);
    this.clock = clock;
    this.family = family;
    this.settings = settings;
    this.nft = nft;
    this.metrics = metrics;
  }

  /**
   * Runs the writes of the saved ruleset on {@code executor}, one at a time in the order given,
   * from the next sync on; without this each is written before the sync returns. {@link
   * #savingThread} writes them on a thread of their own, so the rules are in without waiting for
   * the file.
   */
  public NftDataPlane savingOn(Executor executor) {
    saving = executor;
    return this;
  }

  /**
   * Shares {@code stamps} with the other family's plane: their saved stamps, when equal, are
   * compared with the objects once.
   */
  NftDataPlane sharingSavedStamps(FamiliesSavedStamps stamps) {
    familiesStamps = stamps;
    return this;
  }

  /** One daemon thread that writes {@code family}'s saved ruleset. */
  public static Executor savingThread(IpFamily family) {
    return Executors.newSingleThreadExecutor(task -> savedRulesetThread(family, task));
  }

  /** A daemon thread for work on {@code family}'s saved ruleset, not yet started. */
  private static Thread savedRulesetThread(IpFamily family, Runnable task) {
    var thread = new Thread(task, "saved-ruleset-" + family.name().toLowerCase(Locale.ROOT));
    thread.setDaemon(true);
    return thread;
  }

  /**
   * Starts asking the kernel whether it has a table the saved ruleset could describe, one with a
   * marker set: without one (after a reboot or a cleanup, or a table of an earlier version) the
   * file is not read, since parsing a file as large as the table's script would only delay the
   * rebuild and hold its contents in the heap. Whether the marker names the file's generation is
   * asked when the first full sync starts.
   */
  @Override
  public void starting() {
    starting(ListedComparison.none());
  }

  @Override
  public void starting(ListedComparison listed) {
    if (saved != null && !restoreTried && markerAtStart == null) {
      markerAtStart = CompletableFuture.supplyAsync(this::kernelMarker, this::onItsOwnThread);
      listed.awaitStamps();
      // A fraction of the file, read while the informers list: unlike the ports' records, which
      // are parsed only when the first sync needs them, it holds a string or two per Service.
      provenanceReading =
          markerAtStart.thenApplyAsync(marker -> provenance(marker, listed), this::onItsOwnThread);
    }
  }

  /**
   * {@code provenance}, once the code that digests the rule settings has run: the first sync
   * compares the file's settings digest with this node's, and building the fixed layout the first
   * time in a process (classes loaded and initialised, C1-compiled) took 17–49 ms of it at 44,000
   * Services, where a warm build takes 2–5 ms. The node's own settings are not known yet.
   */
  private Optional<SavedRuleset.Provenance> warmedUp(Optional<SavedRuleset.Provenance> provenance) {
    if (provenance.isPresent()) {
      try {
        new RulesetAssembler(settings.forFamily(family, List.of(), List.of()), clock)
            .settingsDigest();
      } catch (RuntimeException e) {
        // Warming only: the first sync computes the real digest and meets any failure there.
      }
    }
    return provenance;
  }

  /**
   * The file's provenance with its stamps counted, or the other family's if equal; then this
   * family's own copy of them is not kept.
   */
  private ReadProvenance counted(SavedRuleset.Provenance file) {
    var stamps = familiesStamps.share(file.versions());
    return new ReadProvenance(
        new SavedRuleset.Provenance(
            file.settings(), file.basis(), stamps.stamps(), file.serviceCidrs(), file.marker()),
        stamps);
  }

  /**
   * The file's provenance when the kernel has a marker, its stamps offered to {@code listed} before
   * the take-up can ask for its verdict; or that there are none.
   */
  private Optional<ReadProvenance> provenance(
      Optional<SavedRuleset.Marker> marker, ListedComparison listed) {
    Optional<ReadProvenance> found = Optional.empty();
    try {
      if (marker.isPresent()) {
        found = warmedUp(saved.readProvenance()).map(this::counted);
      }
    } finally {
      if (found.isPresent()) {
        listed.compareWith(found.get().versions());
      } else {
        listed.noStamps();
      }
    }
    return found;
  }

  @Override
  public void planned(PlannedObjects objects) {
    planned = objects;
  }

  /** What the next save records of the Services' provenance; it is handed over once. */
  private PlannedObjects takePlanned() {
    var objects = planned;
    planned = null;
    return objects;
  }

  @Override
  public boolean takeUp(
      String basis,
      ObjectVersions.Snapshot objects,
      List<String> nodePortAddresses,
      List<String> nodePodCidrs) {
    if (saved == null || restoreTried || assembler != null || provenanceReading == null) {
      return false;
    }
    var from = clock.instant();
    var found = joined(provenanceReading, Optional.<ReadProvenance>empty());
    provenanceReading = null;
    if (found.isEmpty()) {
      return false; // no table or no usable file: the sync's restore says which
    }
    var file = found.get().file();
    var read = clock.instant();
    // Should anything differ, the sync that goes on plans and reads the marker again beside its
    // plan: this read may be as old as the informers' list.
    var inKernel = joined(markerAtStart, Optional.<SavedRuleset.Marker>empty());
    if (!inKernel.equals(Optional.of(file.marker()))) {
      logNotSaved(Optional.of(file.marker()), inKernel);
      return false;
    }
    // A thread of its own compares slices from now on, and this one joins it after the settings
    // and the Services, unless the other family's saved stamps, the same, were compared with
    // these objects already.
    var comparison = objects.comparing(found.get().versions());
    var sharedSlices =
        comparison.decided()
            ? CompletableFuture.completedFuture(0)
            : CompletableFuture.supplyAsync(comparison::sharedSlices, this::onItsOwnThread);
    var config = settings.forFamily(family, nodePortAddresses, nodePodCidrs);
    String differs = null;
    if (!new RulesetAssembler(config, clock).settingsDigest().equals(file.settings())) {
      differs = "the rule settings";
    } else if (!basis.equals(file.basis())) {
      differs = "the node, the proxy's flags or its version";
    } else if (!RulesetAssembler.serviceCidrsOf(family, serviceCidrs).equals(file.serviceCidrs())) {
      differs = "the Service CIDRs";
    }
    if (differs != null) {
      comparison.cancel();
      LOG.atInfo()
          .addKeyValue("family", family)
          .addKeyValue("changed", differs)
          .log(
              "The saved ruleset was planned for other settings; the first sync plans every Service");
      return false;
    }
    var compareFrom = clock.instant();
    boolean unchanged = matches(comparison, sharedSlices);
    var compared = clock.instant();
    if (!unchanged) {
      LOG.atInfo()
          .addKeyValue("family", family)
          .addKeyValue("changedServices", objects.changedKeys(file.versions()))
          .log("Services changed since the saved ruleset; the first sync plans every Service");
      return false;
    }
    LOG.atInfo()
        .addKeyValue("family", family)
        .addKeyValue("services", file.versions().size())
        .addKeyValue("generation", file.marker().comment())
        // Where the sync went: the kernel's marker and then the file's provenance still being
        // read, then the settings checked and the objects' revisions compared.
        .addKeyValue("waitedMs", Duration.between(from, read).toMillis())
        .addKeyValue("settingsMs", Duration.between(read, compareFrom).toMillis())
        .addKeyValue("comparedMs", Duration.between(compareFrom, compared).toMillis())
        // Whether the informers compared the objects as they stored them, before this sync.
        .addKeyValue("comparedWhileListing", comparison.madeWhileListing())
        .log("The table is the one the proxy saved and no Service changed; keeping its rules");
    return true;
  }

  /**
   * Starts reading the saved file, once the kernel is known to have a table. Not before the first
   * full sync: while the informers list, their decoding is the proxy's heap peak, and the parsed
   * file on top of it raised a restart's peak RSS by 30 MiB at 44,000 Services; from the first full
   * sync on, the parse and the restore run beside the plan and the marker read, which take longer.
   */
  private void startReading() {
    if (reading == null) {
      starting();
      reading =
          markerAtStart.thenApplyAsync(
              marker -> marker.isPresent() ? saved.read() : Optional.empty(), this::onItsOwnThread);
    }
  }

  /**
   * At the first full sync: restores the assembler from the saved file for the settings this sync
   * renders with, and reads the kernel's marker, while the proxier plans. {@link #replaceAll}
   * compares the two before it trusts the assembler.
   */
  @Override
  public void fullSyncStarting(List<String> nodePortAddresses, List<String> nodePodCidrs) {
    if (saved == null || restoreTried) {
      return;
    }
    if (markerReading == null) {
      markerReading = CompletableFuture.supplyAsync(this::kernelMarker, this::onItsOwnThread);
    }
    startReading();
    var config = settings.forFamily(family, nodePortAddresses, nodePodCidrs);
    if (config.equals(restoringFor)) {
      return;
    }
    restoringFor = config;
    restoring =
        reading.thenApplyAsync(
            contents -> contents.map(found -> restored(found, config)), this::onItsOwnThread);
  }

  /**
   * Whether the objects are those of the saved stamps, this thread's share of the comparison taken
   * beside {@code sharedSlices}. A failure, never expected, counts as a difference: the sync then
   * plans.
   */
  private static boolean matches(
      ObjectVersions.Snapshot.Comparison comparison, CompletableFuture<Integer> sharedSlices) {
    try {
      return comparison.matches(sharedSlices::join);
    } catch (RuntimeException e) {
      comparison.cancel();
      return false;
    }
  }

  /** What {@code work} came to, or {@code failed} when it threw. */
  private static <T> T joined(CompletableFuture<T> work, T failed) {
    try {
      return work.join();
    } catch (RuntimeException e) {
      return failed;
    }
  }

  /** The saved ruleset's work before the first sync runs on a short-lived thread of its own. */
  private void onItsOwnThread(Runnable task) {
    savedRulesetThread(family, task).start();
  }

  @Override
  public Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs) {
    var config = settings.forFamily(family, nodePortAddresses, nodePodCidrs);
    linesLoaded = 0;
    longestTransaction = 0;
    if (assembler != null && kernelAsAssembled && assembler.rendersWith(config) && markerHolds()) {
      // The kernel holds what the assembler says: load only what differs, in bounded batches.
      var outcome = loadDifference(ports);
      if (outcome != null) {
        return outcome;
      }
    } else if (assembler == null && saved != null && !restoreTried) {
      restoreTried = true;
      var waitFrom = clock.instant();
      var restoredAssembler = restore(config);
      if (restoredAssembler != null) {
        assembler = restoredAssembler;
        countedPorts = assembler.countedPorts();
        countingOwners = assembler.countingOwners();
        kernelAsAssembled = true;
        var compareFrom = clock.instant();
        var outcome = loadDifference(ports);
        // Where a restart's first sync goes besides the plan: waiting for the saved file and the
        // marker, then comparing every port's input with the file and loading what differs.
        LOG.atInfo()
            .addKeyValue("family", family)
            .addKeyValue("servicePorts", ports.size())
            .addKeyValue("waitedMs", Duration.between(waitFrom, compareFrom).toMillis())
            .addKeyValue(
                "comparedAndLoadedMs", Duration.between(compareFrom, clock.instant()).toMillis())
            .addKeyValue("rules", linesLoaded)
            .log(
                outcome != null
                    ? "Took up the saved ruleset"
                    : "Took up the saved ruleset, but a change needs a rebuild");
        if (outcome != null) {
          return outcome;
        }
      }
    }
    return rebuild(ports, config);
  }

  /**
   * True when the kernel's marker still names the latest generation this proxy loaded (always
   * without a state directory, where no marker is kept): nobody deleted, flushed or rebuilt the
   * table since, so a full sync can load only the differences.
   */
  private boolean markerHolds() {
    if (saved == null) {
      return true;
    }
    var inKernel = kernelMarker();
    if (inKernel.equals(Optional.of(marker))) {
      return true;
    }
    LOG.atWarn()
        .addKeyValue("family", family)
        .addKeyValue("expected", marker.comment())
        .addKeyValue("kernel", inKernel.map(SavedRuleset.Marker::comment).orElse("none"))
        .log("The table changed behind the proxy's back; the full sync rebuilds it");
    return false;
  }

  /**
   * The assembler of what the saved file describes, when the kernel's marker names the file's last
   * generation and the settings are the ones it was rendered with; null otherwise (logged), and the
   * caller rebuilds.
   */
  private RulesetAssembler restore(FamilySettings config) {
    Optional<Restored> restored;
    Optional<SavedRuleset.Marker> inKernel;
    try {
      inKernel = markerReading != null ? markerReading.join() : kernelMarker();
      if (inKernel.isEmpty()) {
        forgetRestore();
        logNotSaved(Optional.empty(), inKernel);
        return null;
      }
      restored = takeRestored(config);
    } catch (RuntimeException e) {
      // A file this version cannot take up (a bug, or an edit by hand) costs the fast restart only.
      var cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("error", cause.toString())
          .log("Cannot use the saved ruleset; the first sync loads every rule");
      return null;
    } finally {
      markerReading = null;
    }
    if (restored.isEmpty()) {
      return null; // no file, or one that cannot be read: logged as it was read
    }
    var found = restored.get();
    if (found.assembler() == null) {
      LOG.atInfo()
          .addKeyValue("family", family)
          .log(
              "The saved ruleset was rendered with other settings; the first sync loads every rule");
      return null;
    }
    if (!inKernel.equals(Optional.of(found.marker()))) {
      logNotSaved(Optional.of(found.marker()), inKernel);
      return null;
    }
    marker = found.marker();
    saving.execute(() -> provenance.adopt(found.basis(), found.versions()));
    LOG.atInfo()
        .addKeyValue("family", family)
        .addKeyValue("servicePorts", found.ports())
        .addKeyValue("generation", marker.comment())
        .log("The table is the one the proxy saved; the first sync loads only what changed since");
    return restored.get().assembler();
  }

  /**
   * Why a start loads every rule although it saves its ruleset: the kernel holds no table of the
   * proxy's, or one of another generation than the file's.
   */
  private void logNotSaved(
      Optional<SavedRuleset.Marker> saved, Optional<SavedRuleset.Marker> inKernel) {
    var line = LOG.atInfo().addKeyValue("family", family);
    saved.ifPresent(marker -> line.addKeyValue("saved", marker.comment()));
    line.addKeyValue("kernel", inKernel.map(SavedRuleset.Marker::comment).orElse("none"));
    line.log(
        inKernel.isEmpty()
            ? "No table the proxy saved is in the kernel (a new node, a reboot, or its rules"
                + " flushed); the first sync loads every rule"
            : "The table is not the one the proxy saved; the first sync loads every rule");
  }

  /**
   * The marker the kernel's table holds now; empty without a table or marker, and when no rule
   * refers to the marker set any more: {@code nft flush table} empties every chain but keeps the
   * set's element, so the element alone would vouch for a table without rules.
   */
  private Optional<SavedRuleset.Marker> kernelMarker() {
    var nftFamily = NftSyntax.family(family);
    var found =
        nft.set(nftFamily, NftNames.TABLE, RulesetAssembler.GENERATION_SET)
            .flatMap(SavedRuleset::marker);
    if (found.isEmpty()
        || nft.referenced(nftFamily, NftNames.TABLE, RulesetAssembler.GENERATION_SET)) {
      return found;
    }
    LOG.atInfo()
        .addKeyValue("family", family)
        .addKeyValue("kernel", found.get().comment())
        .log("The table's rules were flushed; its marker does not count");
    return Optional.empty();
  }

  /**
   * What the saved file restores for {@code config}: the work started before this sync when it was
   * for these settings, else it is done now. Empty when there is no file or it cannot be read.
   */
  private Optional<Restored> takeRestored(FamilySettings config) {
    try {
      if (restoring != null && config.equals(restoringFor)) {
        return restoring.join();
      }
      var contents = reading != null ? reading.join() : saved.read();
      return contents.map(found -> restored(found, config));
    } finally {
      forgetRestore();
    }
  }

  private void forgetRestore() {
    markerAtStart = null;
    provenanceReading = null;
    reading = null;
    restoring = null;
    restoringFor = null;
  }

  /** The assembler {@code contents} restores, if they were rendered with {@code config}. */
  private Restored restored(SavedRuleset.Contents contents, FamilySettings config) {
    var digest = new RulesetAssembler(config, clock).settingsDigest();
    var assembler =
        digest.equals(contents.settings())
            ? RulesetAssembler.restore(config, clock, contents)
            : null;
    return new Restored(
        contents.marker(), contents.portCount(), assembler, contents.basis(), contents.versions());
  }

  /**
   * Loads the difference between the assembler's state and {@code ports} as ordered transactions of
   * whole Service ports; null when only a rebuild can (a new shared chain), before anything was
   * loaded.
   */
  private Outcome loadDifference(List<ServicePortRules> ports) {
    var records = new StringBuilder();
    if (saved != null) {
      assembler.recordTo(records::append);
    }
    Optional<List<String>> batches;
    try {
      var changes = assembler.changesTo(ports, restoredDigests(ports));
      batches = assembler.updateInBatches(changes, TRANSACTION_LINES);
    } finally {
      assembler.recordTo(null);
    }
    if (batches.isEmpty()) {
      kernelAsAssembled = false;
      return null;
    }
    var transactions = new ArrayList<>(batches.get());
    transactions.add(serviceCidrsChange(records));
    return loadThenSave(transactions, records);
  }

  /**
   * After a restart, the input digests of {@code ports}, half of them computed on a thread of its
   * own: the first sync compares every port's digest with the saved one, and that is most of what
   * it does after planning. Null (computed by the assembler as needed) otherwise.
   */
  private List<String> restoredDigests(List<ServicePortRules> ports) {
    if (assembler.restoredPorts() < PARALLEL_DIGESTS_FROM) {
      return null;
    }
    var digests = new String[ports.size()];
    int half = ports.size() / 2;
    var secondHalf =
        CompletableFuture.runAsync(
            () -> digest(ports, digests, half, ports.size()), this::onItsOwnThread);
    digest(ports, digests, 0, half);
    secondHalf.join();
    return Arrays.asList(digests);
  }

  private static void digest(List<ServicePortRules> ports, String[] digests, int from, int to) {
    for (int i = from; i < to; i++) {
      digests[i] = SavedRuleset.digest(ports.get(i));
    }
  }

  /** The transaction taking the Service CIDRs where they should be; its record when it is one. */
  private String serviceCidrsChange(StringBuilder records) {
    var cidrs = assembler.serviceCidrs(serviceCidrs);
    if (!cidrs.isEmpty()) {
      records.append(SavedRuleset.cidrs(assembler.serviceCidrsLoaded()));
    }
    return cidrs;
  }

  /**
   * Loads the transactions of a sync that is no rebuild, appends its records to the saved file once
   * the kernel took them all, and deletes what has been stale long enough: under steady churn the
   * runner may never be idle, so what is due goes after each sync too.
   */
  private Outcome loadThenSave(List<String> transactions, StringBuilder records) {
    var outcome = loadAll(transactions, false);
    var objects = takePlanned();
    if (outcome.status() != Status.FAILED && saved != null) {
      // A sync that loaded nothing still records the objects it planned, under the same marker.
      var text = outcome.status() == Status.LOADED ? records.toString() : "";
      var loaded = marker;
      saving.execute(
          () -> {
            var all = text + provenance.changes(objects);
            if (!all.isEmpty()) {
              saved.append(all, loaded);
              saved.compactIfLarge();
            }
          });
    }
    if (outcome.status() != Status.FAILED) {
      int lines = linesLoaded;
      removeStale();
      linesLoaded = lines;
    }
    return outcome;
  }

  /**
   * Builds the table anew from {@code ports}: in bounded batches when the kernel has no table yet,
   * otherwise in one transaction that replaces the contents in place, keeping the ClientIP affinity
   * sets (the state of the kernel is not known, so nothing smaller can be trusted).
   */
  private Outcome rebuild(List<ServicePortRules> ports, FamilySettings config) {
    // Let the old state go first: at scale two assemblers side by side cost tens of MiB of heap.
    // Should the new one fail to build, no assembler means the next sync is a full one again.
    assembler = null;
    kernelAsAssembled = false;
    assembler = new RulesetAssembler(config, clock);
    countedPorts = assembler.countedPorts();
    countingOwners = assembler.countingOwners();
    assembler.serviceCidrs(serviceCidrs);
    var objects = takePlanned();
    if (saved != null) {
      marker = new SavedRuleset.Marker(RANDOM.nextLong() & Long.MAX_VALUE, 0);
      saving.execute(saved::invalidate);
    }
    var outcome = loadRebuild(ports);
    if (saved != null && outcome.status() == Status.LOADED) {
      // The records are rendered and written after the load, from a snapshot of the ports'
      // inputs. Should the proxy stop before the file is in place, the table's marker no longer
      // names the old file's generation, and the next start loads every rule.
      var settingsDigest = assembler.settingsDigest();
      var records = assembler.recordsNow();
      var loaded = marker;
      saving.execute(
          () -> saved.writeWhole(settingsDigest, records, () -> provenance.whole(objects), loaded));
    }
    return outcome;
  }

  private Outcome loadRebuild(List<ServicePortRules> ports) {
    var kernel = kernelTable();
    if (kernel == null) {
      var outcome = loadCold(ports);
      if (outcome != null) {
        return outcome;
      }
      // The first transaction lacked a shared chain a port needs (see loadCold): what is loaded
      // leaves every port whole, and the table is replaced as one of unknown state.
      kernel = kernelTable();
      if (kernel == null) {
        assembler.forgetStale();
        return loadAll(List.of(assembler.fullScript()), true);
      }
    }
    var keeping = assembler.replaceAll(ports, kernel, countingKeysIn(kernel));
    var outcome = loadAll(List.of(keeping), true);
    if (outcome.status() != Status.FAILED) {
      return outcome;
    }
    // Should this kernel refuse the in-place replacement, a whole new table still gets the rules
    // in now; only the affinity memory is lost, as it always was before.
    LOG.atWarn()
        .addKeyValue("family", family)
        .addKeyValue("error", outcome.error())
        .log("Could not replace the rules in place; replacing the whole table, affinity resets");
    // The whole table goes, stale chains with it.
    assembler.forgetStale();
    return loadAll(List.of(assembler.fullScript()), true);
  }

  /**
   * Builds a new table in bounded transactions, loading each on a thread of its own while the next
   * is rendered ({@link LoadPipeline}), stopping at the first the kernel refuses as {@link
   * #loadAll} does. Null when the assembler found, part way, that the first transaction lacks a
   * shared chain a port needs (a defect of {@code RenderPass.sharedChainsOf}): nothing after that
   * port was loaded, and the caller rebuilds another way.
   */
  private Outcome loadCold(List<ServicePortRules> ports) {
    var load = new Loading(true);
    var pipeline =
        new LoadPipeline("nft-load-" + family.name().toLowerCase(Locale.ROOT), load::transaction);
    RulesetAssembler.ColdRebuild written;
    boolean tookAll = false;
    try {
      written = assembler.replaceAllInBatches(ports, TRANSACTION_LINES, pipeline::offer);
    } finally {
      // Also when rendering threw: the loader must not outlive the sync.
      tookAll = pipeline.finish();
    }
    if (!tookAll && load.refusal == null) {
      // Interrupted (the proxy is stopping): some batches may not have loaded, and none refused.
      kernelAsAssembled = false;
      assembler.forgetStale();
      return Outcome.failed("loading the new table was interrupted");
    }
    if (written == RulesetAssembler.ColdRebuild.SHARED_CHAINS_DIFFER) {
      LOG.atError()
          .addKeyValue("family", family)
          .addKeyValue("transactionsLoaded", load.transactions)
          .log(
              "The new table's first transaction lacks a shared chain a Service port needs;"
                  + " replacing the table in one transaction instead");
      if (load.refusal == null) {
        return null;
      }
    }
    return load.outcome();
  }

  /**
   * Loads transactions in order, each with the next marker when the proxy saves its ruleset, and
   * stops at the first the kernel refuses: the ones before it stay loaded (each leaves every
   * Service port whole), and the next sync rebuilds.
   *
   * @param rebuilding whether the transactions rebuild the table: the first also (re)writes the
   *     rule that refers to the marker set, which only a rebuild needs and which makes nft 1.0.6
   *     fetch the whole table first
   */
  private Outcome loadAll(List<String> transactions, boolean rebuilding) {
    var load = new Loading(rebuilding);
    for (var transaction : transactions) {
      if (!load.transaction(transaction)) {
        break;
      }
    }
    return load.outcome();
  }

  /**
   * The transactions of one load; whichever threads load them, {@link #outcome} runs on the sync's,
   * once they are all loaded or one was refused. A cold rebuild's {@link LoadPipeline} loads two at
   * once: each gets a marker generation of its own when it starts, and the one the kernel holds at
   * the end is the last transaction's, which loads after every other.
   */
  private final class Loading {
    private final boolean rebuilding;
    private int lines;
    private int transactions;
    private Nft.Result refusal;

    /** The latest marker generation handed to a transaction; null before the first. */
    private SavedRuleset.Marker handedOut;

    Loading(boolean rebuilding) {
      this.rebuilding = rebuilding;
    }

    /** Loads one transaction with the next marker; false when the kernel refused it. */
    boolean transaction(String transaction) {
      if (transaction.isEmpty()) {
        return true;
      }
      String script;
      SavedRuleset.Marker carried = null;
      synchronized (this) {
        script = transaction;
        if (saved != null) {
          var first = handedOut == null;
          carried = (first ? marker : handedOut).next();
          handedOut = carried;
          script = transaction + assembler.markerScript(carried);
          // Once, in the first: a rule that refers to a set makes nft 1.0.6 fetch the whole table
          // first, and a flush during the later batches must still leave the set without its rule.
          if (rebuilding && first) {
            script += assembler.markerRuleScript();
          }
        }
        int count = Lines.count(script);
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
        if (carried != null && carried.generation() > marker.generation()) {
          marker = carried;
        }
        transactions++;
      }
      return true;
    }

    synchronized Outcome outcome() {
      if (refusal != null) {
        kernelAsAssembled = false;
        assembler.forgetStale();
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

  /**
   * The counters set and the per-Service counting sets, which the table has whenever it counts
   * connections at all; listing them reads nothing else of the table.
   */
  private List<String> countingSets() {
    if (!settings.observeLocality().counts()) {
      return List.of();
    }
    var sets = new java.util.ArrayList<String>();
    sets.add(NftNames.COUNTERS);
    sets.addAll(NftNames.SERVICE_SETS);
    return sets;
  }

  /**
   * The keys the kernel's counting sets hold, so a full sync that keeps the sets (and their counts)
   * can delete those no port wants any more; none when the table has no counting sets.
   */
  private Set<String> countingKeysIn(KernelTable kernel) {
    if (!kernel.sets().containsKey(NftNames.serviceSet(dev.proxima.proxy.model.Locality.NODE))) {
      return Set.of();
    }
    var keys = new java.util.HashSet<String>();
    nft.counters(NftSyntax.family(family), NftNames.TABLE, countingSets())
        .map(NftCounters::parseServiceSets)
        .ifPresent(sets -> sets.values().forEach(elements -> keys.addAll(elements.keySet())));
    return keys;
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
    var records = new StringBuilder();
    if (saved != null) {
      assembler.recordTo(records::append);
    }
    // Empty when a rule needs a map the kernel cannot type from its own state: never for an
    // endpoint change, a new endpoint count included (its lb-N chain and map load together).
    Optional<String> ports;
    try {
      ports = assembler.update(changes);
    } finally {
      assembler.recordTo(null);
    }
    if (ports.isEmpty()) {
      kernelAsAssembled = false;
      return Outcome.NEEDS_FULL;
    }
    return loadThenSave(List.of(ports.get() + serviceCidrsChange(records)), records);
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

  /**
   * Whether the table still holds what this proxy loaded last: a rule still refers to the marker
   * set and its element names that generation (with a state directory), or a rule still refers to
   * the ServiceCIDR set (without one). An {@code nft flush ruleset}, which a firewall service's
   * reload runs, a deleted or flushed table, or a rebuild by another process fails it, and the next
   * full sync then rebuilds the table where it would load only differences. One or two small nft
   * calls (a delete of the set in check mode, which the kernel refuses while a rule refers to it,
   * then the marker set's listing): no read-back of the table. An edit of single rules inside the
   * table is not seen, as by the full syncs. When nft cannot tell (a timeout, an error other than
   * the set being busy or missing), the table counts as intact and the next check asks again.
   */
  @Override
  public boolean intact() {
    if (assembler == null || !kernelAsAssembled) {
      return true; // nothing loaded yet, or the next sync rebuilds anyway
    }
    var nftFamily = NftSyntax.family(family);
    var set = saved != null ? RulesetAssembler.GENERATION_SET : NftNames.SERVICE_CIDRS;
    var referenced = nft.referencedIfKnown(nftFamily, NftNames.TABLE, set);
    if (referenced.isEmpty()) {
      LOG.atDebug().addKeyValue("family", family).log("nft could not tell whether the table holds");
      return true;
    }
    boolean holds = referenced.get();
    if (holds && saved != null) {
      var listed = nft.set(nftFamily, NftNames.TABLE, set);
      // Empty only when the listing failed, the set being there a moment ago: ask again later.
      holds = listed.isEmpty() || listed.flatMap(SavedRuleset::marker).equals(Optional.of(marker));
    }
    if (!holds) {
      kernelAsAssembled = false;
    }
    return holds;
  }

  /** Lines of the longest transaction of the latest sync, for the benchmarks' figures. */
  int longestTransaction() {
    return longestTransaction;
  }
}
