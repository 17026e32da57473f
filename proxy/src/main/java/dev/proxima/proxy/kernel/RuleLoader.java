package dev.proxima.proxy.kernel;

import java.util.Optional;

/** Loads a ruleset into the kernel as one transaction; tests substitute a recording fake. */
public interface RuleLoader {
  Nft.Result apply(String script);

  /**
   * The table's declarations without set contents ({@code nft -t list table}), so a full sync can
   * replace everything but the state it must keep; empty when the table does not exist or cannot be
   * read, and always for loaders that cannot list.
   */
  default Optional<String> declarations(String family, String table) {
    return Optional.empty();
  }

  /**
   * Whether the table may exist: false only when the loader has seen that it does not ({@code nft
   * list tables}, which reads no table's contents); true for loaders that cannot list.
   */
  default boolean mayHaveTable(String family, String table) {
    return true;
  }

  /**
   * One chain of the table as {@code nft list chain} prints it (nft 1.0.6 still fetches every set
   * element of the table to list it: 0.4 s at 10,000 Services); empty when it does not exist or
   * cannot be read, and always for loaders that cannot list.
   */
  default Optional<String> chain(String family, String table, String chain) {
    return Optional.empty();
  }

  /**
   * The table's named counters as {@code nft list counters} prints them, then the sets {@code sets}
   * with their elements as {@code nft list set} prints them, read in one call at scrape time; empty
   * when they cannot be read, and always for loaders that cannot list.
   */
  default Optional<String> counters(String family, String table, java.util.List<String> sets) {
    return Optional.empty();
  }
}
