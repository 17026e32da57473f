package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.runtime.DataPlane;
import dev.proxima.proxy.runtime.NftDataPlane;
import dev.proxima.proxy.testing.CapturedLogs;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restarted proxy trusts its saved ruleset only when the table's marker names the saved
 * generation; then it reads nothing back and loads only what changed. Otherwise, and when the file
 * cannot be read, it loads everything as it always did.
 */
class RestartFromSavedRulesetTest {
  @TempDir Path state;
  @TempDir Path otherState;

  private final MutableClock clock = new MutableClock();
  private final FakeNftLoader kernel = new FakeNftLoader();

  @RegisterExtension final CapturedLogs logs = new CapturedLogs("dev.proxima.proxy.runtime");

  /** Three Service ports: two endpoints, ClientIP affinity, a NodePort. */
  static final List<ServicePortRules> PORTS =
      List.of(
          service("shop/web", "10.96.0.10", 80)
              .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80)),
          service("shop/api", "10.96.0.11", 80)
              .sticky(Duration.ofSeconds(60))
              .cluster(remote("10.180.1.4", 80), remote("10.180.1.5", 80)),
          service("shop/db", "10.96.0.12", 5432).nodePort(30432).cluster(remote("10.180.2.4", 80)));

  private void assertLogged(String message) {
    assertThat(logs.events())
        .anySatisfy(event -> assertThat(event.getFormattedMessage()).contains(message));
  }

  private NftDataPlane proxy() {
    return proxy(kernel, clock, state);
  }

  /**
   * An IPv4 data plane with default settings, loading with {@code loader}, saving to {@code state}.
   */
  static NftDataPlane proxy(RuleLoader loader, MutableClock clock, Path state) {
    return new NftDataPlane(
        IpFamily.IPV4,
        RuleSettings.defaults(),
        loader,
        new ProxyMetrics(new PrometheusRegistry(), ProxyMode.nftables),
        clock,
        state);
  }

  /** The table a proxy without a saved ruleset loads for {@code ports}, marker left out. */
  private String fresh(List<ServicePortRules> ports) {
    var loader = new FakeNftLoader();
    var plane = proxy(loader, clock, null);
    plane.replaceAll(ports, List.of());
    return withoutMarker(loader.nft.list());
  }

  /** {@link #PORTS} with shop/web's second endpoint moved to 10.180.0.9. */
  private static List<ServicePortRules> withWebMoved() {
    var changed = new ArrayList<>(PORTS);
    changed.set(
        0,
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.9", 80)));
    return changed;
  }

  /**
   * The table without the marker set and chain, which only a proxy with a state directory keeps.
   */
  private static String withoutMarker(String listing) {
    return listing.replaceAll("(chain|set) sync-generation[^\n]*\n(\t[^\n]*\n)*", "");
  }

  @Test
  void aRestartOverTheSavedTableReadsNothingBackAndLoadsNothingWhenNothingChanged() {
    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);
    int readBacks = kernel.readBacks;
    int loads = kernel.loaded.size();
    var before = kernel.nft.list();

    var outcome = proxy().replaceAll(PORTS, List.of());

    assertThat(outcome.status()).isEqualTo(DataPlane.Status.UNCHANGED);
    assertThat(kernel.readBacks).as("no nft -t list table").isEqualTo(readBacks);
    assertThat(kernel.loaded).hasSize(loads);
    assertThat(kernel.nft.list()).isEqualTo(before);
  }

  @Test
  void aRestartLoadsOnlyWhatChangedWhileTheProxyWasAwayAndKeepsSavingAfterwards() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    int loads = kernel.loaded.size();
    var changed = withWebMoved();

    var restarted = proxy();
    assertThat(restarted.replaceAll(changed, List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).isEqualTo(readBacks);
    assertThat(kernel.loaded).hasSize(loads + 1);
    assertThat(kernel.loaded.get(loads))
        .contains("10.180.0.9")
        .doesNotContain("10.180.1.4")
        .doesNotContain("10.96.0.12");
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(changed));
    assertThat(logs.events())
        .as("the restart says where its first sync went")
        .anySatisfy(
            event -> {
              assertThat(event.getFormattedMessage()).isEqualTo("Took up the saved ruleset");
              assertThat(event.getKeyValuePairs())
                  .extracting(pair -> pair.key)
                  .contains("servicePorts", "waitedMs", "comparedAndLoadedMs", "rules");
            });

    // A partial sync of the restarted proxy is saved too: the next restart starts from it.
    var again = new ArrayList<>(changed);
    again.remove(2);
    restarted.update(removal());
    assertThat(proxy().replaceAll(again, List.of()).status()).isEqualTo(DataPlane.Status.UNCHANGED);
    assertThat(kernel.readBacks).isEqualTo(readBacks);
  }

  @Test
  void aFullSyncLoadsTheRulesWithoutWaitingForTheSavedFileWhichTheNextSyncsExtendInOrder() {
    var saving = new ArrayDeque<Runnable>();
    var plane = proxy().savingOn(saving::add);

    assertThat(plane.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);
    plane.update(removal());

    assertThat(kernel.nft.list()).contains("10.96.0.10").doesNotContain("10.96.0.12");
    assertThat(state.resolve("nft-ipv4.state")).as("not written by the syncs").doesNotExist();
    saving.forEach(Runnable::run);
    var afterRemoval = PORTS.subList(0, 2);
    int loads = kernel.loaded.size();
    assertThat(proxy().replaceAll(afterRemoval, List.of()).status())
        .isEqualTo(DataPlane.Status.UNCHANGED);
    assertThat(kernel.loaded).hasSize(loads);
  }

  private static java.util.Map<dev.proxima.proxy.model.ServicePortName, ServicePortRules>
      removal() {
    var changes =
        new java.util.HashMap<dev.proxima.proxy.model.ServicePortName, ServicePortRules>();
    changes.put(PORTS.get(2).port().name(), null);
    return changes;
  }

  @Test
  void aTableSomeoneElseChangedIsLoadedWholeAfterARestart() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    // Another tool (or another proxy version) rebuilt the table: it flushed every chain.
    kernel.apply("flush chain ip proxima " + RulesetAssembler.GENERATION_CHAIN + "\n");
    kernel.apply("flush chain ip proxima services\n");

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).as("the table is read back and replaced").isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertLogged("No table the proxy saved is in the kernel");
  }

  @Test
  void aPartialSyncRewritesOnlyTheMarkerSetsElementNotAChainOrRule() {
    var plane = proxy();
    plane.replaceAll(PORTS, List.of());
    int loads = kernel.loaded.size();

    plane.update(webMoved());

    assertThat(kernel.loaded).hasSize(loads + 1);
    assertThat(kernel.loaded.get(loads).lines().filter(line -> line.contains("sync-generation")))
        .as("nft 1.0.6 fetches the whole table for a chain's flush or rule, not for these")
        .allMatch(
            line ->
                line.startsWith("add set ")
                    || line.startsWith("flush set ")
                    || line.startsWith("add element "))
        .anyMatch(line -> line.startsWith("add element "));
    assertThat(kernel.loaded.get(loads)).contains("0x1 comment \"epoch-");
  }

  @Test
  void aTableFlushedWithNftFlushTableKeepsItsMarkerElementYetIsLoadedWholeAfterARestart() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    kernel.apply("flush table ip proxima\n");
    assertThat(kernel.nft.elementsOf(RulesetAssembler.GENERATION_SET))
        .as("nft flush table empties chains, not sets")
        .hasSize(1);

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).as("the table is read back and replaced").isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertLogged("The table's rules were flushed; its marker does not count");
    // The rebuild gave the marker its rule again: the next restart trusts the table.
    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.UNCHANGED);
  }

  @Test
  void aPartialSyncAfterAFlushDoesNotHideTheFlushFromTheNextFullSync() {
    var plane = proxy();
    plane.replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    kernel.apply("flush table ip proxima\n");

    plane.update(webMoved());
    plane.replaceAll(withWebMoved(), List.of());

    assertThat(kernel.readBacks).as("the full sync rebuilt the table").isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(withWebMoved()));
  }

  @Test
  void aTableCarryingTheOldMarkerChainIsLoadedWholeAndKeepsOnlyTheNewMarker() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    // The table as an earlier version left it: the saved generation as a rule's comment in the
    // marker chain, no marker set.
    var comment = kernel.nft.elementsOf(RulesetAssembler.GENERATION_SET).values().iterator().next();
    kernel.apply(
        "flush chain ip proxima sync-generation\n"
            + "delete set ip proxima sync-generation\n"
            + "add rule ip proxima sync-generation return"
            + comment.substring(comment.indexOf(" comment "))
            + "\n");

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(kernel.nft.rulesOf(RulesetAssembler.GENERATION_CHAIN))
        .containsExactly("meta mark @sync-generation return");
    assertThat(kernel.nft.elementsOf(RulesetAssembler.GENERATION_SET)).hasSize(1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  /** shop/web's second endpoint moved to 10.180.0.9, as a partial sync gets it. */
  private static java.util.Map<dev.proxima.proxy.model.ServicePortName, ServicePortRules>
      webMoved() {
    var moved = withWebMoved().get(0);
    return java.util.Map.of(moved.port().name(), moved);
  }

  @Test
  void aCorruptSavedFileIsAWarningAndTheFirstSyncLoadsEverything() throws Exception {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    Files.writeString(
        state.resolve("nft-ipv4.state"), SavedRuleset.HEADER + "\nsettings x\nport \n");

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(logs.events())
        .anySatisfy(
            event -> {
              assertThat(event.getLevel()).isEqualTo(Level.WARN);
              assertThat(event.getFormattedMessage()).contains("Cannot use the saved ruleset");
            });
    // The rebuild wrote the file anew: the next restart trusts it again.
    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.UNCHANGED);
    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
  }

  @Test
  void aRunningProxyFindsItsTableIntactWithoutLoadingOrReadingItBack() {
    var plane = proxy();
    assertThat(plane.intact()).as("nothing loaded yet").isTrue();
    plane.replaceAll(PORTS, List.of());
    plane.update(removal());
    int loads = kernel.loaded.size();
    int readBacks = kernel.readBacks;

    assertThat(plane.intact()).isTrue();
    assertThat(plane.intact()).isTrue();

    assertThat(kernel.loaded).hasSize(loads);
    assertThat(kernel.readBacks).isEqualTo(readBacks);
    assertThat(plane.replaceAll(PORTS.subList(0, 2), List.of()).status())
        .as("the full sync after the checks loads only what differs, here nothing")
        .isEqualTo(DataPlane.Status.UNCHANGED);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"flush ruleset", "delete table ip proxima", "flush table ip proxima"})
  void aTableFlushedOrDeletedUnderARunningProxyIsNoticedAndTheNextFullSyncRebuildsIt(
      String command) {
    var plane = proxy();
    plane.replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    kernel.apply(command + "\n");

    assertThat(plane.intact()).isFalse();
    assertThat(plane.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertThat(kernel.readBacks)
        .as("the table's state read once, to rebuild it")
        .isEqualTo(readBacks + 1);
    assertThat(plane.intact()).as("rebuilt with its marker").isTrue();
  }

  @Test
  void aTableRebuiltByAnotherProxyIsNoticedByTheOneRunning() {
    var plane = proxy();
    plane.replaceAll(PORTS, List.of());
    // A second proxy on the node (another state directory) loads the table: a new epoch.
    proxy(kernel, clock, otherState).replaceAll(withWebMoved(), List.of());

    assertThat(plane.intact()).isFalse();
    plane.replaceAll(PORTS, List.of());
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"flush ruleset", "delete table ip proxima", "flush table ip proxima"})
  void withoutAStateDirectoryAFlushedOrDeletedTableIsNoticedAndRebuiltToo(String command) {
    var plane = proxy(kernel, clock, null);
    plane.replaceAll(PORTS, List.of());
    assertThat(plane.intact()).isTrue();
    kernel.apply(command + "\n");

    assertThat(plane.intact()).isFalse();
    assertThat(plane.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertThat(plane.intact()).isTrue();
  }

  @Test
  void aDryRunsPrintedTableIsAlwaysIntactSoItsChecksForceNoSync() {
    var printed = new ArrayList<String>();
    var plane = proxy(new PrintingRuleLoader(printed::add), clock, null);
    plane.replaceAll(PORTS, List.of());

    assertThat(plane.intact()).isTrue();
    assertThat(plane.replaceAll(PORTS, List.of()).status())
        .as("nothing to load after the check")
        .isEqualTo(DataPlane.Status.UNCHANGED);
  }

  @Test
  void whenNftCannotTellTheTableCountsAsIntactUntilTheNextCheck() {
    var unsure =
        new RuleLoader() {
          boolean answers = false;

          @Override
          public Nft.Result apply(String script) {
            return kernel.apply(script);
          }

          @Override
          public Optional<String> declarations(String family, String table) {
            return kernel.declarations(family, table);
          }

          @Override
          public Optional<String> set(String family, String table, String set) {
            return kernel.set(family, table, set);
          }

          @Override
          public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
            return answers ? Optional.of(kernel.referenced(family, table, set)) : Optional.empty();
          }
        };
    var plane = proxy(unsure, clock, state);
    plane.replaceAll(PORTS, List.of());
    kernel.apply("flush ruleset\n");

    assertThat(plane.intact()).as("nft timed out, say").isTrue();
    unsure.answers = true;
    assertThat(plane.intact()).isFalse();
  }

  @Test
  void aTableOfAnotherGenerationThanTheSavedFileIsLoadedWholeAndTheLogNamesBoth() throws Exception {
    var file = state.resolve("nft-ipv4.state");
    proxy().replaceAll(PORTS, List.of());
    var older = Files.readString(file);
    var restarted = proxy();
    restarted.replaceAll(PORTS, List.of());
    restarted.update(removal());
    // The file went back a generation (restored from a backup, say): the kernel's table is newer.
    Files.writeString(file, older);
    int readBacks = kernel.readBacks;
    int logged = logs.events().size();

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).as("the table is read back and replaced").isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertThat(logs.events().subList(logged, logs.events().size()))
        .noneSatisfy(
            event -> assertThat(event.getFormattedMessage()).startsWith("No table the proxy saved"))
        .anySatisfy(
            event -> {
              assertThat(event.getFormattedMessage())
                  .startsWith("The table is not the one the proxy saved");
              assertThat(event.getKeyValuePairs())
                  .extracting(pair -> pair.key)
                  .contains("saved", "kernel");
            });
  }

  @Test
  void aStartWithoutATableLoadsEverythingWithoutReadingTheSavedFile() throws Exception {
    // After a reboot: the file is there, the table is not. A corrupt file shows whether it is read.
    Files.writeString(
        state.resolve("nft-ipv4.state"), SavedRuleset.HEADER + "\nsettings x\nport \n");

    assertThat(proxy().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(logs.events())
        .noneSatisfy(
            event ->
                assertThat(event.getFormattedMessage()).contains("Cannot use the saved ruleset"))
        .anySatisfy(
            event ->
                assertThat(event.getFormattedMessage())
                    .contains("No table the proxy saved is in the kernel"));
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  @Test
  void aPeriodicFullSyncNoticesATableChangedBehindItsBackAndRebuildsIt() {
    var plane = proxy();
    plane.replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    kernel.apply("flush chain ip proxima " + RulesetAssembler.GENERATION_CHAIN + "\n");
    kernel.apply("flush chain ip proxima services\n");

    plane.replaceAll(PORTS, List.of());

    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  @Test
  void
      aRestartThatReadsItsFileWhileTheInformersListAndRestoresItWhileTheProxierPlansLoadsOnlyTheChange() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    int loads = kernel.loaded.size();
    var changed = withWebMoved();

    var restarted = proxy();
    restarted.starting();
    restarted.fullSyncStarting(List.of(), List.of());

    assertThat(restarted.replaceAll(changed, List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    assertThat(kernel.readBacks).isEqualTo(readBacks);
    assertThat(kernel.loaded).hasSize(loads + 1);
    assertThat(kernel.loaded.get(loads)).contains("10.180.0.9").doesNotContain("10.180.1.4");
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(changed));
  }

  @Test
  void aRestoreStartedForOtherSettingsThanTheSyncRendersWithIsNotUsed() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;

    var restarted = proxy();
    restarted.starting();
    // The sync announced NodePort addresses, then renders with none: the restore started for the
    // announced ones renders the fixed table differently and must not be taken up.
    restarted.fullSyncStarting(List.of("192.168.0.11"), List.of());

    assertThat(restarted.replaceAll(PORTS, List.of()).status())
        .isEqualTo(DataPlane.Status.UNCHANGED);
    assertThat(kernel.readBacks).isEqualTo(readBacks);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  @Test
  void aCorruptFileReadWhileTheInformersListIsAWarningAndTheFirstSyncLoadsEverything()
      throws Exception {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    Files.writeString(
        state.resolve("nft-ipv4.state"), SavedRuleset.HEADER + "\nsettings x\nport \n");

    var restarted = proxy();
    restarted.starting();
    restarted.fullSyncStarting(List.of(), List.of());

    assertThat(restarted.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);
    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
    assertThat(logs.events())
        .anySatisfy(
            event -> {
              assertThat(event.getLevel()).isEqualTo(Level.WARN);
              assertThat(event.getFormattedMessage()).contains("Cannot use the saved ruleset");
            });
  }

  @Test
  void aTableFlushedWhileTheFileIsReadIsLoadedWhole() {
    proxy().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;

    var restarted = proxy();
    restarted.starting();
    // Someone flushes the table while the file is read, before the first sync looks at the kernel.
    kernel.apply("flush chain ip proxima " + RulesetAssembler.GENERATION_CHAIN + "\n");
    kernel.apply("flush chain ip proxima services\n");
    restarted.fullSyncStarting(List.of(), List.of());

    assertThat(restarted.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);
    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(PORTS));
  }

  @Test
  void aRestartOverManyPortsComparesTheirDigestsOnTwoThreadsAndLoadsOnlyTheChange() {
    var many = new ArrayList<ServicePortRules>();
    for (int i = 0; i < NftDataPlane.PARALLEL_DIGESTS_FROM + 200; i++) {
      many.add(
          service("shop/svc-" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), 80)
              .cluster(remote("10.180." + (i / 250) + "." + (i % 250 + 1), 8080)));
    }
    proxy().replaceAll(many, List.of());
    int loads = kernel.loaded.size();
    var changed = new ArrayList<>(many);
    // One port in each half of the list.
    for (int i : List.of(3, many.size() - 3)) {
      changed.set(
          i,
          service("shop/svc-" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), 80)
              .cluster(remote("10.181.0." + (i % 250 + 1), 8080)));
    }

    var restarted = proxy();
    restarted.starting();
    restarted.fullSyncStarting(List.of(), List.of());

    assertThat(restarted.replaceAll(changed, List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    assertThat(kernel.loaded).hasSize(loads + 1);
    assertThat(kernel.loaded.get(loads))
        .contains("10.181.0.4", "10.181.0." + ((many.size() - 3) % 250 + 1))
        .doesNotContain("shop/svc-100:");
    assertThat(withoutMarker(kernel.nft.list())).isEqualTo(fresh(changed));
  }

  @Test
  void aNewTableBuiltInBatchesGivesTheMarkerSetItsRuleInTheFirstTransactionOnly() {
    var many = new ArrayList<ServicePortRules>();
    for (int i = 0; i < 6000; i++) {
      many.add(
          service("shop/svc-" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), 80)
              .cluster(remote("10.180." + (i / 250) + "." + (i % 250 + 1), 8080)));
    }

    assertThat(proxy().replaceAll(many, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.loaded).hasSizeGreaterThan(2);
    assertThat(kernel.loaded.get(0)).contains("@sync-generation return");
    assertThat(kernel.loaded.subList(1, kernel.loaded.size()))
        .allSatisfy(
            script ->
                assertThat(script)
                    .contains("add element ip proxima sync-generation")
                    .doesNotContain("@sync-generation return"));
    assertThat(kernel.referenced("ip", "proxima", "sync-generation")).isTrue();
  }
}
