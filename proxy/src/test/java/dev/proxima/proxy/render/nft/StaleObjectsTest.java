package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chains and sets a partial sync stops using are emptied at once and deleted a second later, in a
 * transaction of their own, unless a Service uses them again first.
 */
class StaleObjectsTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  private static final String PREFIX = "ip proxima ";

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock();
  private final RulesetAssembler assembler = new RulesetAssembler(CONFIG, clock);

  private static final ServicePortRules WEB =
      service("shop/web", "10.96.0.10", 80)
          .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80));

  /** Plain ClusterIP: no chain or set of its own, only elements. */
  private static final ServicePortRules API =
      service("shop/api", "10.96.0.11", 80)
          .cluster(remote("10.180.1.4", 80), remote("10.180.1.5", 80));

  private static final ServicePortRules STICKY =
      service("shop/sticky", "10.96.0.12", 80)
          .sticky(Duration.ofSeconds(60))
          .cluster(remote("10.180.2.4", 80), remote("10.180.2.5", 80));

  private static Map<ServicePortName, ServicePortRules> removing(ServicePortRules rules) {
    var changes = new HashMap<ServicePortName, ServicePortRules>();
    changes.put(rules.port().name(), null);
    return changes;
  }

  private static Map<ServicePortName, ServicePortRules> adding(ServicePortRules rules) {
    return Map.of(rules.port().name(), rules);
  }

  /** The chains, sets and maps a script declares, as "chain NAME", "set NAME", "map NAME". */
  private static Set<String> declared(String script) {
    var objects = new LinkedHashSet<String>();
    for (var line : script.lines().toList()) {
      var words = line.strip().split("\\s+");
      if (words.length >= 5 && words[0].equals("add") && !words[1].equals("rule")) {
        if (Set.of("chain", "set", "map").contains(words[1])) {
          objects.add(words[1] + " " + words[4]);
        }
      }
    }
    return objects;
  }

  /** What {@code rules} adds to a table that holds {@code WEB}: its own chains and sets. */
  private static Set<String> ownObjects(ServicePortRules rules) {
    var with = declared(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, rules)));
    with.removeAll(declared(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB))));
    return with;
  }

  @Test
  void aRemovedServicesChainsAreFlushedAtOnceAndDeletedOnlyASecondLater() {
    var own = ownObjects(STICKY);
    assertThat(own).as("the Service has chains of its own").anyMatch(o -> o.startsWith("chain "));
    assertThat(own).anyMatch(o -> o.startsWith("set " + NftNames.AFFINITY_PREFIX));
    assembler.replaceAll(List.of(WEB, STICKY));

    var partial = assembler.update(removing(STICKY)).orElseThrow().toString();

    for (var object : own) {
      var name = object.substring(object.indexOf(' ') + 1);
      if (object.startsWith("chain ")) {
        assertThat(partial).contains("flush chain " + PREFIX + name + "\n");
      }
      assertThat(partial).doesNotContain("delete " + object.split(" ")[0] + " " + PREFIX + name);
    }
    assertThat(assembler.stalePending()).isEqualTo(own.size());

    clock.advance(Duration.ofMillis(999));
    assertThat(assembler.staleCleanup()).as("not before a second").isEmpty();

    clock.advance(Duration.ofMillis(1));
    var cleanup = assembler.staleCleanup().orElseThrow();
    for (var object : own) {
      var kindAndName = object.split(" ");
      assertThat(cleanup.transaction().toString())
          .contains("delete " + kindAndName[0] + " " + PREFIX + kindAndName[1] + "\n");
    }
    assertThat(cleanup.transaction().toString().lines()).hasSize(own.size());
    assembler.staleDeleted(cleanup);
    assertThat(assembler.stalePending()).isZero();
    assertThat(assembler.staleCleanup()).isEmpty();
  }

  @Test
  void aServiceBackWithinTheSecondKeepsItsChainsAndSetsAndGetsItsRulesBack() {
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(WEB, STICKY)));
    kernel.apply(assembler.update(removing(STICKY)).orElseThrow());
    clock.advance(Duration.ofMillis(500));

    kernel.apply(assembler.update(adding(STICKY)).orElseThrow());
    clock.advance(Duration.ofSeconds(5));

    assertThat(assembler.staleCleanup()).as("nothing it uses is deleted").isEmpty();
    assertThat(assembler.stalePending()).isZero();
    // Its flushed chains get their rules again: the table holds what a fresh one holds.
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, STICKY)));
    assertThat(kernel.list()).isEqualTo(fresh.list());
  }

  @Test
  void aSharedLbChainWhoseLastUserGoesIsDeletedWithItsMapAndTheNextUserStillNeedsNoFullSync() {
    var single = service("shop/one", "10.96.0.20", 80).cluster(remote("10.180.4.4", 80));
    var other = service("shop/other", "10.96.0.21", 80).cluster(remote("10.180.4.5", 80));
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(WEB, single)));

    var gone = assembler.update(removing(single)).orElseThrow().toString();
    kernel.apply(gone);
    clock.advance(RulesetAssembler.STALE_DELAY);
    var cleanup = assembler.staleCleanup().orElseThrow();
    kernel.apply(cleanup.transaction().toString());
    assembler.staleDeleted(cleanup);

    assertThat(gone).doesNotContain("flush chain " + PREFIX + "lb-1");
    assertThat(cleanup.transaction().toString())
        .isEqualTo(
            "flush chain "
                + PREFIX
                + "lb-1\ndelete chain "
                + PREFIX
                + "lb-1\ndelete map "
                + PREFIX
                + "lb-1\n");
    var back = assembler.update(adding(other));
    assertThat(back).as("a delta, not a full sync").isPresent();
    kernel.apply(back.get());
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, other)));
    assertThat(kernel.list()).isEqualTo(fresh.list());
  }

  @Test
  void aSharedLbChainTakenBackBeforeTheCleanupKeepsItsMapAndGetsItsRuleAgain() {
    var single = service("shop/one", "10.96.0.20", 80).cluster(remote("10.180.4.4", 80));
    var other = service("shop/other", "10.96.0.21", 80).cluster(remote("10.180.4.5", 80));
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(WEB, single)));
    kernel.apply(assembler.update(removing(single)).orElseThrow());

    kernel.apply(assembler.update(adding(other)).orElseThrow());
    clock.advance(RulesetAssembler.STALE_DELAY);

    assertThat(assembler.staleCleanup()).isEmpty();
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, other)));
    assertThat(kernel.list()).isEqualTo(fresh.list());
  }

  @Test
  void aCleanupDeletesABoundedBatchAndLeavesTheRestForTheNext() {
    var many = new java.util.ArrayList<ServicePortRules>();
    for (int i = 0; i < 700; i++) {
      many.add(
          service("many/s" + i, "10.97." + (i / 250) + "." + (i % 250 + 1), 80)
              .sticky(Duration.ofSeconds(60))
              .cluster(remote("10.181." + (i / 250) + "." + (i % 250 + 1), 80)));
    }
    assembler.replaceAll(many);
    var gone = new HashMap<ServicePortName, ServicePortRules>();
    many.forEach(rules -> gone.putAll(removing(rules)));
    assembler.update(gone).orElseThrow();
    clock.advance(RulesetAssembler.STALE_DELAY);
    int stale = assembler.stalePending();

    var first = assembler.staleCleanup().orElseThrow();
    assembler.staleDeleted(first);
    var second = assembler.staleCleanup().orElseThrow();
    assembler.staleDeleted(second);

    assertThat(stale).isGreaterThan(LoadedObjects.CLEANUP_BATCH);
    assertThat(first.transaction().toString().lines()).hasSize(LoadedObjects.CLEANUP_BATCH);
    assertThat(second.transaction().toString().lines())
        .hasSize(stale - LoadedObjects.CLEANUP_BATCH);
    assertThat(assembler.stalePending()).isZero();
  }

  @Test
  void aFullSyncDeletesTheNamedCountersAnEarlierLayoutLeft() {
    var before =
        new KernelTable(
            Map.of("services", new KernelTable.Chain(false, false)),
            Map.of(),
            new java.util.LinkedHashSet<>(List.of("locality-node", "no-endpoints")));

    var deleting =
        new RulesetAssembler(CONFIG, clock, 1).deletingEarlier(before, Set.of(), Integer.MAX_VALUE);

    assertThat(FakeNft.text(deleting.chains()).lines())
        .containsExactly(
            "delete chain " + PREFIX + "services",
            "delete counter " + PREFIX + "locality-node",
            "delete counter " + PREFIX + "no-endpoints");
  }

  @Test
  void aServiceBackAfterTheCleanupIsDeclaredAgain() {
    assembler.replaceAll(List.of(WEB, STICKY));
    assembler.update(removing(STICKY)).orElseThrow();
    clock.advance(RulesetAssembler.STALE_DELAY);
    assembler.staleDeleted(assembler.staleCleanup().orElseThrow());

    var back = assembler.update(adding(STICKY)).orElseThrow().toString();

    for (var object : ownObjects(STICKY)) {
      var kindAndName = object.split(" ");
      assertThat(back).contains("add " + kindAndName[0] + " " + PREFIX + kindAndName[1]);
    }
  }

  @Test
  void aRefusedCleanupKeepsItsChainsStaleAndIsRetriedLater() {
    assembler.replaceAll(List.of(WEB, STICKY));
    assembler.update(removing(STICKY)).orElseThrow();
    clock.advance(RulesetAssembler.STALE_DELAY);
    var refused = assembler.staleCleanup().orElseThrow();

    assembler.staleKept(refused, Duration.ofSeconds(30));

    assertThat(assembler.stalePending()).isEqualTo(refused.chains().size() + refused.sets().size());
    clock.advance(Duration.ofSeconds(29));
    assertThat(assembler.staleCleanup()).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    var retried = assembler.staleCleanup().orElseThrow();
    assertThat(retried.transaction()).hasToString(refused.transaction().toString());
    assertThat(retried.chains()).isEqualTo(refused.chains());
    assertThat(retried.sets()).isEqualTo(refused.sets());
  }

  @Test
  void aFullSyncForgetsWhatEarlierPartialSyncsLeftStale() {
    assembler.replaceAll(List.of(WEB, STICKY));
    assembler.update(removing(STICKY)).orElseThrow();

    assembler.replaceAll(List.of(WEB));
    clock.advance(RulesetAssembler.STALE_DELAY);

    assertThat(assembler.staleCleanup()).isEmpty();
  }

  /**
   * In the kernel: after Services come, some go by partial syncs and the cleanup runs, table {@code
   * proxima} holds exactly what a fresh table of the remaining Services holds, no more.
   */
  @RootTier
  @Test
  void afterTheCleanupTheKernelHoldsExactlyWhatAFreshTableOfTheRemainingServicesHolds()
      throws Exception {
    NftTool.assumeKernelTools();
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxs-" + suffix;
    var fresh = "pxt-" + suffix;
    var lb =
        service("shop/lb", "10.96.0.13", 80)
            .loadBalancerIps("192.0.2.10")
            .sourceRanges("203.0.113.0/24")
            .cluster(remote("10.180.3.4", 80));
    try {
      load(patched, assembler.replaceAll(List.of(WEB, API, STICKY, lb)));
      var gone = new HashMap<ServicePortName, ServicePortRules>();
      gone.putAll(removing(API));
      gone.putAll(removing(STICKY));
      load(patched, assembler.update(gone).orElseThrow().toString());
      clock.advance(RulesetAssembler.STALE_DELAY);
      var cleanup = assembler.staleCleanup();
      if (cleanup.isPresent()) {
        load(patched, cleanup.get().transaction().toString());
        assembler.staleDeleted(cleanup.get());
      }

      load(fresh, new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, lb)));
      assertThat(NftTool.objects(directory, patched)).isEqualTo(NftTool.objects(directory, fresh));
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  private void load(String namespace, String script) throws Exception {
    NftTool.load(directory, namespace, script);
  }
}
