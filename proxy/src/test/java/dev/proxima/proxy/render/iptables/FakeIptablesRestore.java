package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An in-memory stand-in for {@code iptables-restore --noflush} on one family's Proxima chains: it
 * applies a buffer (table sections, chain declarations, {@code -A}, {@code -I}, {@code -D}, {@code
 * -F}, {@code -X}, {@code COMMIT}; {@code -D} by text or by position) and lists the chains, so
 * ordinary unit tests can check every render path of the iptables mode, full and partial.
 *
 * <p>Written from the tool's rules, not from the renderer: each table section commits on its own,
 * all or nothing; with {@code --noflush}, declaring an existing chain empties it; deleting a
 * missing rule, a missing chain or a chain that has rules or that a rule still jumps to fails;
 * every {@code -j PROXIMA-...} must name a chain of the table when the section commits; and a rule
 * with an unbalanced quote fails the section, as the tool's tokenizer does.
 */
final class FakeIptablesRestore {
  private static final Set<String> BUILT_IN =
      Set.of("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING");

  /** Table to chain to rules (each the text after {@code -A CHAIN }). */
  private final Map<String, Map<String, List<String>>> tables = new TreeMap<>();

  /** Applies {@code buffer}; sections committed before a failing one stay, as with the tool. */
  void apply(String buffer) {
    String table = null;
    Map<String, List<String>> working = null;
    for (var raw : buffer.lines().toList()) {
      var line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("*")) {
        table = line.substring(1);
        working = copy(tables.getOrDefault(table, new TreeMap<>()));
      } else if (line.equals("COMMIT")) {
        checkJumps(table, working);
        tables.put(table, working);
        table = null;
        working = null;
      } else if (working == null) {
        throw new IllegalStateException("outside a table section: " + line);
      } else {
        statement(working, line);
      }
    }
    if (table != null) {
      throw new IllegalStateException("section *" + table + " has no COMMIT");
    }
  }

  /** Proxima's chains by table, as {@code replaceAll} expects them. */
  Map<String, Set<String>> chains() {
    var out = new TreeMap<String, Set<String>>();
    tables.forEach((table, chains) -> out.put(table, new LinkedHashSet<>(chains.keySet())));
    return out;
  }

  /** What {@code iptables-save -t TABLE} would print, per table (rules as they were written). */
  Map<String, String> save() {
    var out = new TreeMap<String, String>();
    var all = new TreeMap<String, Map<String, List<String>>>();
    List.of("filter", "mangle", "nat").forEach(table -> all.put(table, new TreeMap<>()));
    all.putAll(tables);
    all.forEach(
        (table, chains) -> {
          var text = new StringBuilder("*").append(table).append('\n');
          chains.keySet().forEach(chain -> text.append(':').append(chain).append(" - [0:0]\n"));
          chains.forEach(
              (chain, rules) ->
                  rules.forEach(
                      rule ->
                          text.append("-A ").append(chain).append(' ').append(rule).append('\n')));
          out.put(table, text.append("COMMIT\n").toString());
        });
    return out;
  }

  /** Chains and dispatch rules, as a full sync reads them. */
  IptablesListing listingForSync() {
    return IptablesListing.fromSave(save());
  }

  /** Every table's chains and their rules in order. */
  Map<String, List<String>> listing() {
    var out = new TreeMap<String, List<String>>();
    tables.forEach(
        (table, chains) -> chains.forEach((chain, rules) -> out.put(table + " " + chain, rules)));
    return out;
  }

  private static void statement(Map<String, List<String>> chains, String line) {
    if (line.startsWith(":")) {
      var name = line.substring(1, line.indexOf(' '));
      chains.put(name, new ArrayList<>()); // --noflush: a declared chain starts empty
      return;
    }
    requireBalancedQuotes(line);
    var parts = line.split(" ", 3);
    var flag = parts[0];
    var chain = parts[1];
    var rule = parts.length > 2 ? parts[2] : "";
    switch (flag) {
      case "-A" -> existing(chains, chain, line).add(rule);
      case "-I" -> {
        var position = rule.split(" ", 2);
        if (position[0].matches("\\d+")) {
          existing(chains, chain, line).add(Integer.parseInt(position[0]) - 1, position[1]);
        } else {
          existing(chains, chain, line).add(0, rule);
        }
      }
      case "-D" -> {
        var rules = existing(chains, chain, line);
        if (rule.matches("\\d+")) {
          int position = Integer.parseInt(rule);
          if (position < 1 || position > rules.size()) {
            throw new IllegalStateException("no rule at that position: " + line);
          }
          rules.remove(position - 1);
        } else if (!rules.remove(rule)) {
          throw new IllegalStateException("no such rule: " + line);
        }
      }
      case "-F" -> existing(chains, chain, line).clear();
      case "-X" -> {
        if (!existing(chains, chain, line).isEmpty()) {
          throw new IllegalStateException("chain has rules: " + line);
        }
        chains.remove(chain);
        chains.forEach(
            (other, rules) ->
                rules.forEach(
                    r -> {
                      if (r.matches(".*-j " + chain + "( .*)?")) {
                        throw new IllegalStateException(chain + " is still a target in " + other);
                      }
                    }));
      }
      default -> throw new IllegalStateException("not understood: " + line);
    }
  }

  private static List<String> existing(
      Map<String, List<String>> chains, String chain, String line) {
    var rules = chains.get(chain);
    if (rules == null) {
      if (!BUILT_IN.contains(chain)) {
        throw new IllegalStateException("no chain " + chain + ": " + line);
      }
      rules = new ArrayList<>();
      chains.put(chain, rules);
    }
    return rules;
  }

  private static void checkJumps(String table, Map<String, List<String>> chains) {
    chains.forEach(
        (chain, rules) ->
            rules.forEach(
                rule -> {
                  for (var word : rule.split(" ")) {
                    if (word.startsWith(IptablesChains.PREFIX)
                        && rule.contains("-j " + word)
                        && !chains.containsKey(word)) {
                      throw new IllegalStateException(
                          table + " " + chain + " jumps to missing " + word + ": " + rule);
                    }
                  }
                }));
  }

  private static void requireBalancedQuotes(String line) {
    long quotes = line.chars().filter(c -> c == '"').count();
    if (quotes % 2 != 0) {
      throw new IllegalStateException("unbalanced quote: " + line);
    }
  }

  private static Map<String, List<String>> copy(Map<String, List<String>> chains) {
    var copy = new TreeMap<String, List<String>>();
    chains.forEach((chain, rules) -> copy.put(chain, new ArrayList<>(rules)));
    return copy;
  }
}
