package dev.proxima.e2e.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Reads a node's rules, as {@code nft list ruleset} or {@code iptables-save} prints them. */
final class RulesetText {
  private RulesetText() {}

  /**
   * Whether the rules name {@code address} itself, not an address it is the start or end of ({@code
   * 10.96.0.2} in {@code 10.96.0.21}).
   */
  static boolean mentions(String rules, String address) {
    boolean v6 = address.contains(":");
    for (int at = rules.indexOf(address); at >= 0; at = rules.indexOf(address, at + 1)) {
      int end = at + address.length();
      if ((at == 0 || !continuesAddress(rules.charAt(at - 1), v6))
          && (end == rules.length() || !continuesAddress(rules.charAt(end), v6))) {
        return true;
      }
    }
    return false;
  }

  /** A character that would make a longer address; after an IPv4 address a colon starts a port. */
  private static boolean continuesAddress(char c, boolean v6) {
    return v6
        ? Character.digit(c, 16) >= 0 || c == '.' || c == ':'
        : Character.isDigit(c) || c == '.';
  }

  /** A full sync's generation at the end of an object's name: {@code service-ips-g1}. */
  private static final Pattern GENERATION = Pattern.compile("(?<=[a-z0-9])-g\\d+(?![\\w-])");

  /** What an element of a set declared with {@code counter} has counted: traffic, not rules. */
  private static final Pattern ELEMENT_COUNT = Pattern.compile("counter packets \\d+ bytes \\d+");

  /**
   * An nft table listing as what it programs: its sets, maps and chains by name, in no particular
   * order, without the empty regular chains a sync leaves for a later cleanup to delete, and
   * whatever generation a full sync named its objects for ({@code -g1}). Two listings of one
   * ruleset can differ in order (a full sync declares base chains again, so they list last), in
   * such chains and in those names. Named counters and the elements of counter sets count as
   * programmed, their values (which traffic moves on) do not.
   */
  static Map<String, List<String>> programmed(String table) {
    var blocks = new TreeMap<String, List<String>>();
    String header = null;
    var body = new ArrayList<String>();
    for (var listed : table.split("\n")) {
      var line =
          ELEMENT_COUNT.matcher(GENERATION.matcher(listed).replaceAll("")).replaceAll("counter");
      if (header == null) {
        if (line.startsWith("\t") && !line.startsWith("\t\t") && line.endsWith("{")) {
          header = line.strip();
          body = new ArrayList<>();
        } else if (!line.isBlank()) {
          blocks.computeIfAbsent("", k -> new ArrayList<>()).add(line.strip());
        }
      } else if (line.equals("\t}")) {
        boolean staleChain = header.startsWith("chain ") && body.isEmpty();
        if (header.startsWith("counter ")) {
          blocks.put(header, List.of());
        } else if (!staleChain) {
          blocks.put(header, body);
        }
        header = null;
      } else {
        body.add(line.strip());
      }
    }
    dropUnusedEndpointCounts(blocks);
    return blocks;
  }

  /** A map of the {@code lb-N} kind: one per endpoint count, with the chain of the same name. */
  private static final Pattern COUNT_MAP = Pattern.compile("map ((?:[a-z]+-)*lb-\\d+) \\{");

  /**
   * An {@code lb-N} map without elements and its chain: no Service port has N endpoints any more.
   * Partial syncs leave them (a port reaching N again reuses them); a full sync builds only the
   * ones in use. Either way nothing reaches them, so they program nothing.
   */
  private static void dropUnusedEndpointCounts(Map<String, List<String>> blocks) {
    var unused = new ArrayList<String>();
    blocks.forEach(
        (header, body) -> {
          var map = COUNT_MAP.matcher(header);
          if (map.matches() && body.stream().noneMatch(line -> line.startsWith("elements"))) {
            unused.add(map.group(1));
          }
        });
    for (var name : unused) {
      blocks.remove("map " + name + " {");
      blocks.remove("chain " + name + " {");
    }
  }
}
