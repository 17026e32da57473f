package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;

/** A full sync as the nftables data plane runs it, on {@link FakeNft}: beside, switch, delete. */
final class FullSyncs {
  private FullSyncs() {}

  /**
   * Builds {@code ports} beside what {@code kernel} holds in transactions of about {@code budget}
   * lines, switches to them, and deletes what was there; returns the assembler of the new table.
   */
  static RulesetAssembler over(
      FakeNft kernel,
      FamilySettings config,
      Clock clock,
      List<ServicePortRules> ports,
      int budget) {
    var before = kernel.kernelTable() == null ? KernelTable.none() : kernel.kernelTable();
    var next = new RulesetAssembler(config, clock, before.freeGeneration());
    next.replaceAllInBatches(ports, budget).forEach(kernel::apply);
    var countingKeys = new HashSet<String>();
    for (var set : NftNames.SERVICE_SETS) {
      countingKeys.addAll(kernel.elementsOf(set).keySet());
    }
    var deleting = next.deletingEarlier(before, countingKeys, Integer.MAX_VALUE);
    deleting.first().forEach(kernel::apply);
    deleting.chains().forEach(kernel::apply);
    return next;
  }
}
