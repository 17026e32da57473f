package dev.proxima.proxy.kernel;

import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftTransaction;
import java.util.List;
import java.util.Optional;

/**
 * The kernel seam: loads a transaction, and reads the table back as typed objects. The adapter
 * serializes the transaction as the text {@code nft -f} reads; the tests' fake reads that same
 * text, so what it checks is what the kernel is given.
 */
public interface RuleLoader {
  Nft.Result apply(NftTransaction transaction);

  /**
   * The table's chains, sets, maps and counters by name, without rules or elements ({@code nft -t
   * list chains}, {@code sets} and {@code maps}: nft fetches no element for them, 0.1 s with
   * 250,000 elements in the table, where {@code nft -t list table} fetches them all, 23 s), so a
   * full sync knows what to build beside and what to delete after; empty when they cannot be read,
   * and always for loaders that cannot list.
   */
  default Optional<KernelTable> table(String family, String table) {
    return Optional.empty();
  }

  /**
   * The elements of one set of the table, by key ({@code nft list set}: nft 1.0.6 fetches that set
   * alone, 3 ms at 44,000 Services, where {@code nft list chain} fetches the whole table, 1.3 s);
   * empty when it does not exist or cannot be read, and always for loaders that cannot list.
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

  /**
   * The sets {@code sets} with their elements (and their counters) as {@code nft list set} prints
   * them, read in one call at scrape time; empty when they cannot be read, and always for loaders
   * that cannot list.
   */
  default Optional<String> counters(String family, String table, List<String> sets) {
    return Optional.empty();
  }
}
