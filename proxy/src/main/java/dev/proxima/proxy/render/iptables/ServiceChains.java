package dev.proxima.proxy.render.iptables;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one Service port contributes to the ruleset: its rules in Proxima's shared top-level chains
 * and the nat chains it owns. The assembler rewrites the shared chains on every sync from these,
 * and writes a Service port's own chains only when that Service changed.
 *
 * @param ownChains the Service port's own nat chains (SVC, SVL, EXT, FW, SEP) with their rules, in
 *     declaration order; a chain may be empty
 * @param healthCheckNodePort the port to accept in filter PROXIMA-NODEPORTS, or 0
 * @param endpointAddresses how many distinct endpoint addresses the port uses (for the
 *     large-cluster threshold)
 */
record ServiceChains(
    List<IptablesRule> shared,
    Map<String, List<IptablesRule>> ownChains,
    int healthCheckNodePort,
    IptablesRule healthCheck,
    int endpointAddresses,
    List<String> warnings) {
  ServiceChains {
    shared = List.copyOf(shared);
    var copy = new LinkedHashMap<String, List<IptablesRule>>();
    ownChains.forEach((chain, rules) -> copy.put(chain, List.copyOf(rules)));
    ownChains = java.util.Collections.unmodifiableMap(copy);
    warnings = List.copyOf(warnings);
  }

  /** Its lines in a buffer: chain declarations, own rules, shared rules and the health check. */
  int lines() {
    int lines = ownChains.size() + shared.size() + 1;
    for (List<IptablesRule> rules : ownChains.values()) {
      lines += rules.size();
    }
    return lines;
  }
}
