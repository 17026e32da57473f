package dev.proxima.proxy.kernel;

import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftTransaction;
import java.util.List;
import java.util.Optional;

/**
 * The kernel seam: loads a transaction and reads the table back. The tests' fake reads the same
 * text {@code nft -f} is given, so what it checks is what the kernel gets.
 */
public interface RuleLoader {
  Nft.Result apply(NftTransaction transaction);

  /**
   * The table's objects by name, without rules or elements (nft then fetches no element: 0.1 s at
   * 250,000 elements where listing the table takes 23 s); empty when unreadable or not listable.
   */
  default Optional<KernelTable> table(String family, String table) {
    return Optional.empty();
  }

  /**
   * One set's elements by key (nft fetches that set alone: 3 ms at 44,000 Services, where listing a
   * chain fetches the table, 1.3 s); empty when missing, unreadable or not listable.
   */
  default Optional<List<NftElement>> elements(String family, String table, String set) {
    return Optional.empty();
  }

  /**
   * Whether a rule refers to the set: false when it is free or missing, and always for loaders that
   * cannot tell; empty when nft could not tell (it timed out, or failed for another reason than the
   * set being busy or missing), and a periodic check then leaves the table alone.
   */
  default Optional<Boolean> referencedIfKnown(String family, String table, String set) {
    return Optional.of(false);
  }

  /** The sets as {@code nft list set} prints them, in one call; empty when unreadable. */
  default Optional<String> counters(String family, String table, List<String> sets) {
    return Optional.empty();
  }
}
