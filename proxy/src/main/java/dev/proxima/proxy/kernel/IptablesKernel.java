package dev.proxima.proxy.kernel;

import dev.proxima.proxy.render.iptables.IptablesListing;
import dev.proxima.proxy.render.iptables.JumpRule;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What the iptables mode needs of one family's iptables tools; tests substitute a fake. */
public interface IptablesKernel {
  /** Loads one {@code iptables-restore} buffer. */
  Nft.Result apply(String buffer);

  /** Proxima's chains now in the kernel, per table; a table that cannot be read is left out. */
  Map<String, Set<String>> proximaChains();

  /**
   * Proxima's chains and its dispatch chains' rules; the chains only make a full sync one buffer.
   */
  default IptablesListing listing() {
    return IptablesListing.ofChains(proximaChains());
  }

  boolean has(JumpRule jump);

  /** Prepends the jump to its built-in chain. */
  HostCommand.Outcome insert(JumpRule jump);

  boolean hasCanary(String table);

  /** The rules with their counters ({@code iptables-save -c}); empty when they cannot be read. */
  default Optional<String> savedCounters() {
    return Optional.empty();
  }

  /**
   * Lines per full-sync restore buffer: the nft backend slows quadratically with a buffer's size,
   * the legacy backend rewrites its whole table per buffer.
   */
  default int fullSyncLines() {
    return Integer.MAX_VALUE;
  }
}
