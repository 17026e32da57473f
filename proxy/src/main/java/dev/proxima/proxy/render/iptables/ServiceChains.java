package dev.proxima.proxy.render.iptables;

import java.util.List;
import java.util.Map;

/**
 * What one Service port contributes: its rules in the shared top-level chains, and its own nat
 * chains (SVC, SVL, EXT, FW, SEP, SPZ) with their rules in declaration order, which the assembler
 * writes only when the port changed.
 *
 * @param healthCheckNodePort the port {@code healthCheck} accepts in filter PROXIMA-NODEPORTS, or 0
 */
record ServiceChains(
    List<IptablesRule> shared,
    Map<String, List<IptablesRule>> ownChains,
    int healthCheckNodePort,
    IptablesRule healthCheck,
    List<String> warnings) {
  /** Its lines in a buffer: chain declarations, own rules, shared rules and the health check. */
  int lines() {
    return ownChains.size()
        + shared.size()
        + 1
        + ownChains.values().stream().mapToInt(List::size).sum();
  }
}
