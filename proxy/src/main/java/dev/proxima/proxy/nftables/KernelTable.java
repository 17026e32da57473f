package dev.proxima.proxy.nftables;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The names table {@code proxima} holds before a full sync, which builds beside them under a free
 * generation's names, then deletes them but base chains and sets that hold state ("set" or "map").
 */
public record KernelTable(
    Map<String, Chain> chains, Map<String, String> sets, Set<String> counters) {
  /** A base chain can be recreated (nothing jumps to it); an empty one was flushed when unused. */
  public record Chain(boolean base, boolean empty) {}

  public KernelTable {
    // In the kernel's order, so the script a full sync loads is the same for the same table.
    chains = Collections.unmodifiableMap(new LinkedHashMap<>(chains));
    sets = Collections.unmodifiableMap(new LinkedHashMap<>(sets));
    counters = Collections.unmodifiableSet(new LinkedHashSet<>(counters));
  }

  public static KernelTable none() {
    return new KernelTable(Map.of(), Map.of(), Set.of());
  }

  /** Reads nft's listing; lines other than chain, set, map and counter blocks are ignored. */
  public static KernelTable parse(String listing) {
    var chains = new LinkedHashMap<String, Chain>();
    var sets = new LinkedHashMap<String, String>();
    var counters = new LinkedHashSet<String>();
    String chain = null;
    boolean ours = true;
    boolean base = false;
    int rules = 0;
    int depth = 0;
    for (var raw : listing.lines().toList()) {
      var line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (depth == 0 && line.startsWith("table ")) {
        // A listing of the family's chains, sets or maps names every table: only ours counts.
        var words = line.split("\\s+");
        ours = words.length >= 3 && words[2].equals(NftNames.TABLE);
      } else if (ours && depth == 1 && line.endsWith("{")) {
        var words = line.split("\\s+");
        if (words.length == 3 && words[0].equals("chain")) {
          chain = words[1];
          base = false;
          rules = 0;
        } else if (words.length == 3 && (words[0].equals("set") || words[0].equals("map"))) {
          sets.put(words[1], words[0]);
        } else if (words.length == 3 && words[0].equals("counter")) {
          counters.add(words[1]);
        }
      } else if (depth == 2 && chain != null && !line.equals("}")) {
        if (line.startsWith("type ") && line.contains(" hook ")) {
          base = true;
        } else if (!line.startsWith("comment ") && !line.startsWith("policy ")) {
          rules++;
        }
      }
      depth += count(line, '{') - count(line, '}');
      if (depth <= 1 && chain != null) {
        chains.put(chain, new Chain(base, rules == 0));
        chain = null;
      }
    }
    return new KernelTable(chains, sets, counters);
  }

  /** The lowest generation no chain or set here is named for, but those that keep their names. */
  public int freeGeneration() {
    var used = new java.util.HashSet<Integer>();
    chains.keySet().stream()
        .filter(name -> !chains.get(name).base())
        .forEach(name -> used.add(generationOf(name)));
    sets.keySet().stream()
        .filter(name -> !NftText.keepsName(name))
        .forEach(name -> used.add(generationOf(name)));
    int free = 0;
    while (used.contains(free)) {
      free++;
    }
    return free;
  }

  /** The generation a name is of: the number after its last {@code -g}, else 0. */
  public static int generationOf(String name) {
    int mark = name.lastIndexOf(NftText.GENERATION_MARK);
    if (mark < 0 || mark + 2 == name.length() || mark + 11 < name.length()) {
      return 0;
    }
    var digits = name.substring(mark + 2);
    return digits.chars().allMatch(c -> c >= '0' && c <= '9') ? Integer.parseInt(digits) : 0;
  }

  private static int count(String line, char c) {
    int n = 0;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == c && !quoted) {
        n++;
      }
    }
    return n;
  }
}
