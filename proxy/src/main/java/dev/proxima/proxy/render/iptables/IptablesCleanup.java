package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The buffer that removes Proxima from iptables, from what {@code iptables-save} shows: the jumps
 * into {@code PROXIMA-} chains, then those chains. Nothing else is touched. Pure.
 */
public final class IptablesCleanup {
  private IptablesCleanup() {}

  /** "" when nothing of Proxima's is there. */
  public static String buffer(Map<String, String> saveByTable) {
    IptablesTransaction out = new IptablesTransaction();
    for (var entry : new java.util.TreeMap<>(saveByTable).entrySet()) {
      String table = entry.getKey();
      var lines = entry.getValue().split("\n");
      var chains =
          Stream.of(lines)
              .map(IptablesCleanup::proximaChain)
              .filter(Objects::nonNull)
              .collect(Collectors.toCollection(TreeSet::new));
      List<IptablesRule> jumps = new ArrayList<>();
      for (String line : lines) {
        // By the rule's target, not its text: another tool's comment may name a Proxima chain.
        if (line.startsWith("-A ") && !line.startsWith("-A " + IptablesChains.PREFIX)) {
          // A rule without a target (a counting rule) jumps nowhere.
          var target = target(line);
          if (target != null && chains.contains(target)) {
            jumps.add(IptablesRule.saved(table, line));
          }
        }
      }
      chains.forEach(chain -> out.declare(table, chain));
      jumps.forEach(out::delete);
      chains.forEach(chain -> out.deleteChain(table, chain));
    }
    return out.text();
  }

  /** The chain a line {@code :NAME POLICY [p:b]} declares, if Proxima's. */
  private static String proximaChain(String line) {
    if (!line.startsWith(":" + IptablesChains.PREFIX)) {
      return null;
    }
    int space = line.indexOf(' ');
    return line.substring(1, space > 0 ? space : line.length());
  }

  /** Proxima's chains per table; a counter chain only when whole, so a damaged one is rewritten. */
  public static Map<String, java.util.Set<String>> chains(Map<String, String> saveByTable) {
    var result = new java.util.TreeMap<String, java.util.Set<String>>();
    saveByTable.forEach(
        (table, save) -> {
          var names =
              Stream.of(save.split("\n"))
                  .map(IptablesCleanup::proximaChain)
                  .filter(chain -> chain != null && !IptablesCounters.isCounter(table, chain))
                  .collect(Collectors.toCollection(TreeSet::new));
          names.addAll(IptablesCounters.whole(table, save));
          result.put(table, names);
        });
    return result;
  }

  /** The word after the last unquoted {@code -j} or {@code -g}, so a quoted comment is none. */
  static String target(String line) {
    String target = null;
    boolean afterJump = false;
    var word = new StringBuilder();
    boolean inQuotes = false;
    boolean quoted = false;
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (inQuotes) {
        if (c == '\\' && i + 1 < line.length()) {
          word.append(line.charAt(++i));
        } else if (c == '"') {
          inQuotes = false;
        } else {
          word.append(c);
        }
      } else if (c == '"') {
        inQuotes = true;
        quoted = true;
        inWord = true;
      } else if (c == ' ' || c == '\t') {
        if (inWord) {
          String text = word.toString();
          target = afterJump ? text : target;
          afterJump = !quoted && (text.equals("-j") || text.equals("-g"));
          word.setLength(0);
          quoted = false;
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    return inWord && afterJump ? word.toString() : target;
  }
}
