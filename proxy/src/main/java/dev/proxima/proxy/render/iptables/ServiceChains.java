package dev.proxima.proxy.render.iptables;

import java.util.List;
import java.util.Map;

/**
 * One Service port's rules in the shared top-level chains, and its own nat chains (SVC, SVL, EXT,
 * FW, SEP, SPZ), written only when the port changed; {@code healthCheckNodePort} 0 for none.
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
