package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.testing.FakeNft;
import java.util.List;
import java.util.Optional;

/**
 * {@link FakeNft} as nft: loads, lists the marker set, tells whether a rule refers to it, and
 * counts whole-table read-backs.
 */
final class FakeNftLoader implements RuleLoader {
  final FakeNft nft = new FakeNft();
  final List<String> loaded = new java.util.ArrayList<>();
  int readBacks;

  /** How often the marker set was listed; read by other threads. */
  final java.util.concurrent.atomic.AtomicInteger markerReads =
      new java.util.concurrent.atomic.AtomicInteger();

  /** How often it was asked whether a rule refers to the marker set; read by other threads. */
  final java.util.concurrent.atomic.AtomicInteger referenceChecks =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * One transaction at a time, as the kernel commits them: a cold rebuild loads from two threads.
   */
  @Override
  public synchronized Nft.Result apply(NftTransaction transaction) {
    var script = transaction.toString();
    try {
      nft.apply(script);
      loaded.add(script);
      return new Nft.Result(true, "", null);
    } catch (RuntimeException e) {
      return new Nft.Result(false, e.getMessage(), null);
    }
  }

  @Override
  public Optional<KernelTable> table(String family, String table) {
    readBacks++;
    return Optional.ofNullable(nft.kernelTable());
  }

  @Override
  public Optional<List<NftElement>> elements(String family, String table, String set) {
    markerReads.incrementAndGet();
    if (!nft.objects().containsKey("set " + set)) {
      return Optional.empty();
    }
    return Optional.of(nft.elementsOf(set).keySet().stream().map(NftElement::of).toList());
  }

  @Override
  public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
    boolean referenced = nft.referenced(set);
    // Counted once answered: a test waiting for the count may then change the table.
    referenceChecks.incrementAndGet();
    return Optional.of(referenced);
  }
}
