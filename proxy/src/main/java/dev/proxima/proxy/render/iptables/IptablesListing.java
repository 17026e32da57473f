package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a full sync needs to know of the kernel, read from {@code iptables-save -t TABLE}: Proxima's
 * chains, and the rules of the chains holding one rule per Service port ({@link #DISPATCH_CHAINS}),
 * so a batched full sync can delete a port's old rules by position.
 *
 * @param dispatchRules per table, in kernel order; a table that could not be read is missing
 */
public record IptablesListing(
    Map<String, Set<String>> chains, Map<String, List<SavedRule>> dispatchRules) {
  public record SavedRule(String chain, String comment) {}

  public static final Map<String, Set<String>> DISPATCH_CHAINS =
      Map.of(
          "filter",
          Set.of(
              IptablesChains.SERVICES,
              IptablesChains.EXTERNAL_SERVICES,
              IptablesChains.NODEPORTS,
              IptablesChains.FIREWALL),
          "nat",
          Set.of(IptablesChains.SERVICES, IptablesChains.NODEPORTS));

  /** Rules unknown: a full sync then goes in one buffer. */
  public static IptablesListing ofChains(Map<String, Set<String>> chains) {
    return new IptablesListing(chains, Map.of());
  }

  public static IptablesListing fromSave(Map<String, String> saveByTable) {
    var rules = new TreeMap<String, List<SavedRule>>();
    saveByTable.forEach(
        (table, save) -> {
          Set<String> dispatch = DISPATCH_CHAINS.getOrDefault(table, Set.of());
          List<SavedRule> lines = new ArrayList<>();
          for (String line : save.split("\n")) {
            if (line.startsWith("-A ")) {
              int space = line.indexOf(' ', 3);
              String chain = space < 0 ? line.substring(3) : line.substring(3, space);
              if (dispatch.contains(chain)) {
                lines.add(new SavedRule(chain, comment(line)));
              }
            }
          }
          rules.put(table, lines);
        });
    return new IptablesListing(IptablesCleanup.chains(saveByTable), rules);
  }

  public boolean rulesKnown() {
    return dispatchRules.containsKey("filter") && dispatchRules.containsKey("nat");
  }

  /** Without quotes, or null; Proxima's comments hold no quote or backslash. */
  static String comment(String line) {
    int at = line.indexOf("--comment ");
    if (at < 0) {
      return null;
    }
    int start = at + "--comment ".length();
    if (start < line.length() && line.charAt(start) == '"') {
      int end = line.indexOf('"', start + 1);
      return end < 0 ? null : line.substring(start + 1, end);
    }
    int end = line.indexOf(' ', start);
    return end < 0 ? line.substring(start) : line.substring(start, end);
  }
}
