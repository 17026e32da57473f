package dev.proxima.proxy.kernel;

/** Loads a ruleset into the kernel as one transaction; tests substitute a recording fake. */
public interface RuleLoader {
  Nft.Result apply(String script);
}
