package dev.proxima.proxy.nftables;

import java.util.Objects;

/**
 * A chain of table {@code proxima}.
 *
 * @param hook where a base chain is hooked; null for a regular chain
 * @param map the set or map its rules look up, declared, emptied and deleted with it: an {@code
 *     lb-N} chain's own endpoints map (nft 1.0.6 can type a rule that looks up a {@code typeof} map
 *     only in the transaction that declares the map, so a chain and its map go in together), or a
 *     firewall chain's set of allowed sources; null for none
 */
public record NftChain(String name, Hook hook, NftSet map) {
  public NftChain {
    Objects.requireNonNull(name, "name");
  }

  public record Hook(String type, String hook, int priority) {}

  public static NftChain regular(String name) {
    return new NftChain(name, null, null);
  }

  /** A regular chain declared together with the set or map its rules look up. */
  public static NftChain withMap(String name, NftSet map) {
    return new NftChain(name, null, Objects.requireNonNull(map, "map"));
  }

  public static NftChain base(String name, String type, String hook, int priority) {
    return new NftChain(name, new Hook(type, hook, priority), null);
  }
}
