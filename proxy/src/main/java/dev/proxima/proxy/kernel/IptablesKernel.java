package dev.proxima.proxy.kernel;

import dev.proxima.proxy.render.iptables.JumpRule;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What the iptables mode needs of one family's iptables tools; tests substitute a fake. */
public interface IptablesKernel extends RuleLoader {
  /** Proxima's chains now in the kernel, per table. */
  Map<String, Set<String>> proximaChains();

  /** True when this jump is in its built-in chain. */
  boolean has(JumpRule jump);

  /** Prepends the jump to its built-in chain. */
  HostCommand.Outcome insert(JumpRule jump);

  /** True when Proxima's canary chain exists in the table. */
  boolean hasCanary(String table);

  /**
   * The rules with their counters ({@code iptables-save -c}), read in one call at scrape time for
   * the connection counters; empty when they cannot be read, and always for loaders that cannot.
   */
  default Optional<String> savedCounters() {
    return Optional.empty();
  }

  /**
   * How many Service ports a full sync should put in one restore buffer: the nft backend's {@code
   * --noflush} restore slows down quadratically with a buffer's size, the legacy backend rewrites
   * its whole table per buffer.
   */
  default int fullSyncBatch() {
    return Integer.MAX_VALUE;
  }
}
