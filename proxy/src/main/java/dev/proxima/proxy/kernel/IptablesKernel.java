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
   * Proxima's chains and the rules of its dispatch chains, for a full sync in several buffers; by
   * default the chains only, which makes a full sync one buffer.
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
   * About how many lines a full sync should put in one restore buffer: the nft backend's {@code
   * --noflush} restore slows down quadratically with a buffer's size, the legacy backend rewrites
   * its whole table per buffer.
   */
  default int fullSyncLines() {
    return Integer.MAX_VALUE;
  }
}
