package dev.proxima.proxy.render.nft;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Turns two full renders into the smallest transaction that moves the kernel from the first to the
 * second: new chains and sets, rewritten rules of chains that changed, and element deletes and
 * adds.
 *
 * <p>A partial sync then costs what changed rather than the size of the cluster, and everything it
 * does not touch keeps its state: the ClientIP affinity entries of unchanged Services survive,
 * which a table replacement would wipe. Chains and sets that are no longer used are flushed, not
 * deleted, because older kernels notice that a map element stopped referring to a chain only after
 * a delay; the next full sync removes them.
 *
 * <p>No delta is possible, and the caller replaces the table, when a set's declaration changes, or
 * when a rule that looks up a map must be added: nft 1.0.6 cannot rebuild a {@code typeof} map's
 * key type from the kernel ("conflicting protocols specified: ip vs. th"), so a rule using such a
 * map only loads in the transaction that declares the map. In practice that is a new endpoint count
 * that no other Service port had, which is rare in a running cluster.
 */
public final class NftScriptDiff {
  /** Where a {@code comment "..."} part of an element begins. */
  private static final String COMMENT_START = " comment \"";

  private NftScriptDiff() {}

  /** A rendered script, taken apart into the pieces a delta works on. */
  public static final class Parsed {
    private String family;
    private final Map<String, String> chains = new LinkedHashMap<>();
    private final Map<String, String> sets = new LinkedHashMap<>();
    private final Map<String, List<String>> rules = new LinkedHashMap<>();
    private final Map<String, Set<String>> elements = new LinkedHashMap<>();

    /** Parses the line format {@link NftRenderer} writes. */
    public static Parsed of(String script) {
      var parsed = new Parsed();
      String openSet = null;
      for (var raw : script.lines().toList()) {
        var line = raw.strip();
        if (line.isEmpty()) {
          continue;
        }
        if (openSet != null) {
          if (line.equals("}")) {
            openSet = null;
          } else {
            var element = line.endsWith(",") ? line.substring(0, line.length() - 1) : line;
            parsed.elements.computeIfAbsent(openSet, k -> new LinkedHashSet<>()).add(element);
          }
          continue;
        }
        var words = line.split("\\s+");
        if (words.length < 4 || !words[0].equals("add")) {
          continue; // "delete table" and comments carry nothing a delta needs.
        }
        parsed.family = words[2];
        var name = words.length > 4 ? words[4] : "";
        switch (words[1]) {
          case "chain" -> parsed.chains.put(name, line);
          case "set", "map" -> parsed.sets.put(name, line);
          case "rule" -> parsed.rules.computeIfAbsent(name, k -> new ArrayList<>()).add(line);
          case "element" -> {
            if (line.endsWith("{")) {
              openSet = name;
            } else {
              // One-line form: add element ip proxima name { a, b }
              var body = line.substring(line.indexOf('{') + 1, line.lastIndexOf('}'));
              for (var element : body.split(",")) {
                if (!element.isBlank()) {
                  parsed
                      .elements
                      .computeIfAbsent(name, k -> new LinkedHashSet<>())
                      .add(element.strip());
                }
              }
            }
          }
          default -> {}
        }
      }
      return parsed;
    }

    String family() {
      return family;
    }

    Map<String, String> chains() {
      return chains;
    }

    Map<String, String> sets() {
      return sets;
    }

    Map<String, List<String>> rules() {
      return rules;
    }

    Map<String, Set<String>> elements() {
      return elements;
    }

    boolean isMap(String set) {
      var declaration = sets.get(set);
      return declaration != null && declaration.startsWith("add map");
    }
  }

  /**
   * The transaction from {@code before} to {@code after}: an empty string when nothing changed, or
   * empty when only a full replacement can get there.
   */
  public static Optional<String> delta(Parsed before, Parsed after) {
    if (!Objects.equals(before.family, after.family)) {
      return Optional.empty();
    }
    for (var entry : after.sets.entrySet()) {
      var old = before.sets.get(entry.getKey());
      if (old != null && !old.equals(entry.getValue())) {
        return Optional.empty();
      }
    }
    var prefix = after.family + " " + NftNames.TABLE + " ";
    var out = new StringBuilder();
    after.chains.forEach(
        (name, line) -> {
          if (!before.chains.containsKey(name)) {
            out.append(line).append('\n');
          }
        });
    after.sets.forEach(
        (name, line) -> {
          if (!before.sets.containsKey(name)) {
            out.append(line).append('\n');
          }
        });
    for (var name : after.chains.keySet()) {
      var wanted = after.rules.getOrDefault(name, List.of());
      var had = before.rules.getOrDefault(name, List.of());
      if (wanted.equals(had)) {
        continue;
      }
      if (wanted.stream().anyMatch(rule -> rule.contains(" map @"))) {
        return Optional.empty();
      }
      if (before.chains.containsKey(name)) {
        out.append("flush chain ").append(prefix).append(name).append('\n');
      }
      wanted.forEach(rule -> out.append(rule).append('\n'));
    }
    for (var name : before.chains.keySet()) {
      if (!after.chains.containsKey(name)
          && !before.rules.getOrDefault(name, List.of()).isEmpty()) {
        out.append("flush chain ").append(prefix).append(name).append('\n');
      }
    }
    var deletes = new StringBuilder();
    var adds = new StringBuilder();
    var names = new LinkedHashSet<>(before.elements.keySet());
    names.addAll(after.elements.keySet());
    for (var set : names) {
      var had = before.elements.getOrDefault(set, Set.of());
      var wanted = after.elements.getOrDefault(set, Set.of());
      boolean map = after.isMap(set) || before.isMap(set);
      var wantedKeys = new LinkedHashSet<String>();
      wanted.forEach(element -> wantedKeys.add(key(element, map)));
      var removed = new ArrayList<String>();
      for (var element : had) {
        // A changed value is a delete of the old key and an add of the new element.
        if (!wanted.contains(element)) {
          removed.add(key(element, map));
        }
      }
      var added = wanted.stream().filter(element -> !had.contains(element)).toList();
      block(deletes, "delete element ", prefix, set, removed);
      block(adds, "add element ", prefix, set, added);
    }
    out.append(deletes).append(adds);
    return Optional.of(out.toString());
  }

  static void block(
      StringBuilder out, String verb, String prefix, String set, List<String> elements) {
    if (elements.isEmpty()) {
      return;
    }
    out.append(verb).append(prefix).append(set).append(" {\n");
    for (int i = 0; i < elements.size(); i++) {
      out.append('\t').append(elements.get(i)).append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    out.append("}\n");
  }

  /** What identifies an element for deletion: its key, without value or comment. */
  static String key(String element, boolean map) {
    int value = map ? element.indexOf(" : ") : -1;
    var key = value >= 0 ? element.substring(0, value) : element;
    return withoutComments(key).strip();
  }

  /**
   * {@code text} without its {@code comment "..."} parts. This runs for every map element of a full
   * sync, so it searches with indexOf instead of a regular expression, and returns {@code text}
   * itself when there is no comment.
   */
  private static String withoutComments(String text) {
    int start = text.indexOf(COMMENT_START);
    if (start < 0) {
      return text;
    }
    var out = new StringBuilder(text.length());
    int from = 0;
    while (start >= 0) {
      int close = text.indexOf('"', start + COMMENT_START.length());
      if (close < 0) {
        break; // an unclosed quote is not a comment, and nothing after it can be either
      }
      out.append(text, from, start);
      from = close + 1;
      start = text.indexOf(COMMENT_START, from);
    }
    return out.append(text, from, text.length()).toString();
  }
}
