package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel accepts a full sync split into ordered transactions (nft 1.0.6 included, which types a
 * map lookup only in the transaction declaring the map), and ends with the table one transaction
 * loads. Runs in scratch network namespaces; needs nft, ip and root, else skipped.
 */
@RootTier
class SplitFullSyncKernelTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock();
  private String split;
  private String single;

  @BeforeEach
  void namespaces() {
    assumeTrue(
        HostTools.onPath("nft").isPresent() && HostTools.onPath("ip").isPresent(),
        "needs nft and ip");
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    split = "pxs-" + suffix;
    single = "pxo-" + suffix;
  }

  @AfterEach
  void deleteNamespaces() {
    if (split != null) {
      HostTools.run(directory, "ip", "netns", "del", split);
      HostTools.run(directory, "ip", "netns", "del", single);
    }
  }

  @Test
  void aColdFullSyncInBatchesEndsWithTheTableOfOneTransaction() throws Exception {
    var ports = TransactionBatchesTest.shapes(300, 3, 0);
    var batches = new RulesetAssembler(CONFIG, clock).replaceAllInBatches(ports, 400);
    assertThat(batches).hasSizeGreaterThan(5);

    for (var batch : batches) {
      NftTool.load(directory, split, batch);
    }
    NftTool.load(directory, single, new RulesetAssembler(CONFIG, clock).replaceAll(ports));

    assertThat(NftTool.objects(directory, split)).isEqualTo(NftTool.objects(directory, single));
  }

  @Test
  void portBatchesThatMayLoadSideBySideBuildTheSameTableInAnyOrder() throws Exception {
    var ports = TransactionBatchesTest.shapes(300, 3, 0);
    var batches = new ArrayList<String>();
    var alone = new ArrayList<Boolean>();
    new RulesetAssembler(CONFIG, clock)
        .replaceAllInBatches(
            ports,
            400,
            (batch, isAlone) -> {
              batches.add(batch.toString());
              alone.add(isAlone);
              return true;
            });
    assertThat(batches).hasSizeGreaterThan(5);
    assertThat(alone.get(0)).as("the table and its shared chains").isTrue();
    assertThat(alone.get(alone.size() - 1)).as("the Service CIDRs").isTrue();
    assertThat(alone.subList(1, alone.size() - 1)).contains(false);

    // Between two transactions that load alone, the others in reverse: what two loaders running
    // side by side could do at worst.
    var sideBySide = new ArrayList<String>();
    for (int i = 0; i < batches.size(); i++) {
      if (alone.get(i)) {
        NftTool.load(directory, split, batches.get(i));
        continue;
      }
      sideBySide.add(0, batches.get(i));
      if (alone.get(i + 1)) {
        for (var batch : sideBySide) {
          NftTool.load(directory, split, batch);
        }
        sideBySide.clear();
      }
    }
    NftTool.load(directory, single, new RulesetAssembler(CONFIG, clock).replaceAll(ports));

    assertThat(NftTool.objects(directory, split)).isEqualTo(NftTool.objects(directory, single));
  }

  @Test
  void aFullSyncBesideALoadedTableEndsWithTheTableOfOneTransaction() throws Exception {
    var before = TransactionBatchesTest.shapes(300, 3, 0);
    var after = TransactionBatchesTest.shapes(300, 3, 1).subList(20, 300);
    NftTool.load(directory, split, new RulesetAssembler(CONFIG, clock).replaceAll(before));
    var nft =
        new dev.proxima.proxy.kernel.Nft(
            List.of("ip", "netns", "exec", split, "nft"), java.time.Duration.ofSeconds(60));
    var listed = nft.table("ip", "proxima").orElseThrow();
    var next = new RulesetAssembler(CONFIG, clock, listed.freeGeneration());

    var batches = next.replaceAllInBatches(after, 400);
    assertThat(batches).hasSizeGreaterThan(5);
    for (var batch : batches) {
      NftTool.load(directory, split, batch);
    }
    var deleting = next.deletingEarlier(listed, java.util.Set.of(), Integer.MAX_VALUE);
    NftTool.load(directory, split, FakeNft.text(deleting.first()));
    NftTool.load(directory, split, FakeNft.text(deleting.chains()));
    NftTool.load(
        directory,
        single,
        new RulesetAssembler(CONFIG, clock, next.generation()).replaceAll(after));

    assertThat(NftTool.objects(directory, split)).isEqualTo(NftTool.objects(directory, single));
  }
}
