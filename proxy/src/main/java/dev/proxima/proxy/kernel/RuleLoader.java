package dev.proxima.proxy.kernel;

import java.util.Optional;

/** Loads a ruleset into the kernel as one transaction; tests substitute a recording fake. */
public interface RuleLoader {
  Nft.Result apply(String script);

  /**
   * The family's chains, sets and maps by name, without rules or elements ({@code nft -t list
   * chains}, {@code sets} and {@code maps}: nft fetches no element for them, 0.1 s with 250,000
   * elements in the table, where {@code nft -t list table} fetches them all, 23 s), so a full sync
   * knows what to build beside and what to delete after; empty when they cannot be read, and always
   * for loaders that cannot list. The listing may hold other tables of the family.
   */
  default Optional<String> declarations(String family, String table) {
    return Optional.empty();
  }

  /**
   * One set of the table with its elements, as {@code nft list set} prints it (nft 1.0.6 fetches
   * that set alone: 3 ms at 44,000 Services, where {@code nft list chain} fetches the whole table,
   * 1.3 s); empty when it does not exist or cannot be read, and always for loaders that cannot
   * list.
   */
  default Optional<String> set(String family, String table, String set) {
    return Optional.empty();
  }

  /**
   * Whether a rule refers to the set: the kernel refuses to delete such a set as busy, which {@code
   * nft -c} asks without changing anything. False when the set is free, missing, or the loader
   * cannot tell.
   */
  default boolean referenced(String family, String table, String set) {
    return false;
  }

  /**
   * {@link #referenced}, or empty when nft could not tell (it timed out, or failed for another
   * reason than the set being busy or missing): a periodic check then leaves the table alone.
   */
  default Optional<Boolean> referencedIfKnown(String family, String table, String set) {
    return Optional.of(referenced(family, table, set));
  }

  /**
   * The sets {@code sets} with their elements (and their counters) as {@code nft list set} prints
   * them, read in one call at scrape time; empty when they cannot be read, and always for loaders
   * that cannot list.
   */
  default Optional<String> counters(String family, String table, java.util.List<String> sets) {
    return Optional.empty();
  }
}
