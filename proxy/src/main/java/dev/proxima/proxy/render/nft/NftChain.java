package dev.proxima.proxy.render.nft;

import java.util.Objects;

/**
 * A chain of table {@code proxima}: a regular chain, reached by jumps and verdict maps, or a base
 * chain hooked into netfilter.
 *
 * @param name the chain's name
 * @param hook where a base chain is hooked; null for a regular chain
 */
record NftChain(String name, Hook hook) {
  NftChain {
    Objects.requireNonNull(name, "name");
  }

  /**
   * A base chain's hook.
   *
   * @param type {@code nat} or {@code filter}
   * @param hook the netfilter hook, e.g. {@code prerouting}
   * @param priority the chain's priority at that hook
   */
  record Hook(String type, String hook, int priority) {}

  /** A regular chain. */
  static NftChain regular(String name) {
    return new NftChain(name, null);
  }

  /** A base chain. */
  static NftChain base(String name, String type, String hook, int priority) {
    return new NftChain(name, new Hook(type, hook, priority));
  }
}
