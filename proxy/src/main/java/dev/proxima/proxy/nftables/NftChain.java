package dev.proxima.proxy.nftables;

import java.util.Objects;

/**
 * A chain of table {@code proxima}; {@code map}, declared and deleted with it, is an {@code lb-N}
 * chain's endpoints (nft 1.0.6 types a rule looking up a {@code typeof} map only in the transaction
 * declaring the map) or a firewall chain's allowed sources.
 */
public record NftChain(String name, Hook hook, NftSet map) {
  public NftChain {
    Objects.requireNonNull(name, "name");
  }

  public record Hook(String type, String hook, int priority) {}

  public static NftChain regular(String name) {
    return new NftChain(name, null, null);
  }

  public static NftChain withMap(String name, NftSet map) {
    return new NftChain(name, null, Objects.requireNonNull(map, "map"));
  }

  public static NftChain base(String name, String type, String hook, int priority) {
    return new NftChain(name, new Hook(type, hook, priority), null);
  }
}
