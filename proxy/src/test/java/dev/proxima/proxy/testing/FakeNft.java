package dev.proxima.proxy.testing;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-memory stand-in for {@code nft -f} on the one table Proxima owns: it applies a transaction
 * in the line format the renderer writes (add, flush and delete of chains, sets, maps, rules and
 * elements) and lists what the table holds, so ordinary unit tests can check every render path,
 * full and partial, without root or a kernel; {@link NftTracer} follows packets through it.
 *
 * <p>Written independently of the renderer, from nft's rules: a transaction is all or nothing;
 * deleting a chain with rules, a missing chain, set or element fails; {@code create} of something
 * that exists fails; adding a map key again with another value, or a key of another shape than the
 * set's type, fails; and when the transaction ends, every {@code goto}/{@code jump} and every
 * {@code @set} must name something the table holds (the kernel checks references at commit, so a
 * transaction may delete a map before the chain its elements named).
 */
public final class FakeNft {
  private static final Pattern CHAIN_REFERENCE = Pattern.compile("\\b(?:goto|jump) ([a-z0-9-]+)");
  private static final Pattern SET_REFERENCE = Pattern.compile("@([a-z0-9-]+)");
  private static final Pattern COUNTER_REFERENCE = Pattern.compile("counter name \"([a-z0-9-]+)\"");

  /** A chain: the text after its name in {@code add chain}, and its rules. */
  private record Chain(String spec, List<String> rules) {}

  /** A set or map: {@code set}/{@code map}, its body, and its elements by key. */
  private record Set(String kind, String body, Map<String, String> elements) {}

  private String family;
  private boolean exists;
  private Map<String, Chain> chains = new TreeMap<>();
  private Map<String, Set> sets = new TreeMap<>();

  /** Named counters: {@code add counter} of an existing one keeps it, as in nft. */
  private java.util.Set<String> counters = new java.util.TreeSet<>();

  /** Applies {@code transaction} as the kernel is given it, whole or not at all. */
  public void apply(NftTransaction transaction) {
    apply(transaction.toString());
  }

  /** A hand-written script as a transaction, for a test that hands one to a kernel seam. */
  public static NftTransaction script(String text) {
    return new NftTransaction(new NftText(IpFamily.IPV4)).appendWritten(text);
  }

  /** The text of transactions, one after the other. */
  public static String text(List<NftTransaction> transactions) {
    var out = new StringBuilder();
    transactions.forEach(out::append);
    return out.toString();
  }

  /**
   * Applies {@code script} whole, or not at all.
   *
   * @throws IllegalStateException with what nft would refuse, the table then as it was
   */
  public void apply(String script) {
    var savedChains = copyChains();
    var savedSets = copySets();
    var savedFamily = family;
    var savedExists = exists;
    var savedCounters = new java.util.TreeSet<>(counters);
    try {
      run(script);
      checkReferences();
    } catch (RuntimeException e) {
      chains = savedChains;
      sets = savedSets;
      family = savedFamily;
      exists = savedExists;
      counters = savedCounters;
      throw e;
    }
  }

  /** The table as a canonical listing: chains and sets by name, elements by key. */
  public String list() {
    var out = new StringBuilder();
    counters.forEach(counter -> out.append("counter ").append(counter).append('\n'));
    chains.forEach(
        (name, chain) -> {
          out.append("chain ").append(name).append(chain.spec()).append('\n');
          chain.rules().forEach(rule -> out.append("\t").append(rule).append('\n'));
        });
    sets.forEach(
        (name, set) -> {
          out.append(set.kind()).append(' ').append(name).append(' ').append(set.body());
          out.append('\n');
          new TreeMap<>(set.elements())
              .values()
              .forEach(element -> out.append("\t").append(element).append('\n'));
        });
    return out.toString();
  }

  /** Each object's listing: {@code chain NAME} or {@code set NAME}/{@code map NAME} to its text. */
  public Map<String, String> objects() {
    var out = new TreeMap<String, String>();
    chains.forEach((name, chain) -> out.put("chain " + name, chain.spec() + "\n" + chain.rules()));
    sets.forEach(
        (name, set) ->
            out.put(set.kind() + " " + name, set.body() + "\n" + new TreeMap<>(set.elements())));
    return out;
  }

  /** The elements of a set or map, by key; empty when it does not exist. */
  public Map<String, String> elementsOf(String set) {
    var found = sets.get(set);
    return found == null ? Map.of() : new TreeMap<>(found.elements());
  }

  /** Whether a rule of the table refers to the set, so the kernel would refuse to delete it. */
  public boolean referenced(String set) {
    return chains.values().stream()
        .flatMap(chain -> chain.rules().stream())
        .anyMatch(
            rule -> SET_REFERENCE.matcher(rule).results().anyMatch(m -> m.group(1).equals(set)));
  }

  /** The rules of a chain; null when it does not exist. */
  public List<String> rulesOf(String chain) {
    var found = chains.get(chain);
    return found == null ? null : List.copyOf(found.rules());
  }

  /** True when the chain exists and has no rules: a partial sync's leftover. */
  public boolean emptyChain(String name) {
    var chain = chains.get(name);
    return chain != null && chain.rules().isEmpty();
  }

  /** What a full sync reads before replacing the table in place. */
  public KernelTable kernelTable() {
    if (!exists) {
      return null;
    }
    var kinds = new LinkedHashMap<String, KernelTable.Chain>();
    chains.forEach(
        (name, chain) ->
            kinds.put(
                name,
                new KernelTable.Chain(chain.spec().contains(" hook "), chain.rules().isEmpty())));
    var setKinds = new LinkedHashMap<String, String>();
    sets.forEach((name, set) -> setKinds.put(name, set.kind()));
    return new KernelTable(kinds, setKinds, java.util.Set.of());
  }

  private void run(String script) {
    var lines = script.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      var line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if ((line.startsWith("add element ") || line.startsWith("delete element "))
          && line.endsWith("{")) {
        var body = new ArrayList<String>();
        while (!lines.get(++i).strip().equals("}")) {
          var element = lines.get(i).strip();
          body.add(element.endsWith(",") ? element.substring(0, element.length() - 1) : element);
        }
        elements(line, body);
        continue;
      }
      statement(line);
    }
  }

  private void statement(String line) {
    if (line.equals("flush ruleset")) {
      // Every table goes, as a firewall service's reload does it; the fake holds at most one.
      if (exists) {
        table("delete", family);
      }
      return;
    }
    var words = line.split(" ", 6);
    var verb = words[0];
    var object = words[1];
    if (verb.equals("create")) {
      // nft's create is add that refuses an existing object.
      if (object.equals("table") ? exists : has(object, words[4])) {
        throw new IllegalStateException("exists already: " + line);
      }
      verb = "add";
    }
    if (object.equals("table")) {
      table(verb, words[2]);
      return;
    }
    requireTable(words[2], words[3]);
    var name = words[4];
    var rest = words.length > 5 ? " " + words[5] : "";
    switch (verb + " " + object) {
      case "add chain" -> chains.putIfAbsent(name, new Chain(rest, new ArrayList<>()));
      case "flush chain" -> chain(name).rules().clear();
      case "delete chain" -> {
        if (!chain(name).rules().isEmpty()) {
          throw new IllegalStateException("chain " + name + " has rules: " + line);
        }
        chains.remove(name);
      }
      case "add rule" -> chain(name).rules().add(rest.strip());
      case "flush set", "flush map" -> set(name).elements().clear();
      case "add counter" -> counters.add(name);
      case "add set", "add map" -> {
        var existing = sets.get(name);
        if (existing == null) {
          sets.put(name, new Set(object, rest.strip(), new LinkedHashMap<>()));
        } else if (!existing.body().equals(rest.strip()) || !existing.kind().equals(object)) {
          throw new IllegalStateException("declared again differently: " + line);
        }
      }
      case "delete set", "delete map" -> {
        if (sets.remove(name) == null) {
          throw new IllegalStateException("no " + object + " " + name);
        }
      }
      case "add element", "delete element" -> {
        var body = rest.strip();
        body = body.substring(1, body.length() - 1);
        var elements = new ArrayList<String>();
        for (var element : body.split(",")) {
          if (!element.isBlank()) {
            elements.add(element.strip());
          }
        }
        elements(line, elements);
      }
      default -> throw new IllegalStateException("not understood: " + line);
    }
  }

  private void table(String verb, String tableFamily) {
    switch (verb) {
      case "add" -> {
        if (exists && !tableFamily.equals(family)) {
          throw new IllegalStateException("one family per fake");
        }
        family = tableFamily;
        exists = true;
      }
      case "flush" -> {
        // As nft 1.0.6: every chain loses its rules; sets, maps and their elements stay.
        requireTable(tableFamily, NftNames.TABLE);
        chains.values().forEach(chain -> chain.rules().clear());
      }
      case "delete" -> {
        if (!exists) {
          throw new IllegalStateException("no table to delete");
        }
        exists = false;
        chains.clear();
        sets.clear();
        counters.clear();
      }
      default -> throw new IllegalStateException(verb + " table");
    }
  }

  private void elements(String header, List<String> elements) {
    var words = header.split(" ");
    requireTable(words[2], words[3]);
    var set = sets.get(words[4]);
    if (set == null) {
      throw new IllegalStateException("no set " + words[4] + ": " + header);
    }
    boolean add = words[0].equals("add");
    int arity = arity(set.body());
    for (var element : elements) {
      var key = key(element, set.kind().equals("map"));
      if (arity > 0 && key.split(" \\. ").length != arity) {
        throw new IllegalStateException(words[4] + ": key " + key + " is not of " + set.body());
      }
      if (add) {
        var old = set.elements().putIfAbsent(key, element);
        if (old != null && !old.equals(element)) {
          throw new IllegalStateException(words[4] + ": key " + key + " exists: " + old);
        }
      } else if (set.elements().remove(key) == null) {
        throw new IllegalStateException(words[4] + ": no element " + key);
      }
    }
  }

  /**
   * How many parts a key of this declaration concatenates, from its {@code type} or {@code typeof}
   * clause; 0 when the body declares neither.
   */
  private static int arity(String body) {
    var type = Pattern.compile("\\btype(?:of)? ([^;]*?)(?: : [^;]*)? ;").matcher(body);
    return type.find() ? type.group(1).split(" \\. ").length : 0;
  }

  private boolean has(String object, String name) {
    return object.equals("chain") ? chains.containsKey(name) : sets.containsKey(name);
  }

  /** The base chains' and regular chains' declarations: name to the text after it in add chain. */
  public Map<String, String> chainDeclarations() {
    var out = new TreeMap<String, String>();
    chains.forEach((name, chain) -> out.put(name, chain.spec().strip()));
    return out;
  }

  /** A set's or map's declaration as added; null when it does not exist. */
  public String declaration(String set) {
    var found = sets.get(set);
    return found == null ? null : found.body();
  }

  /** An element's key: what precedes {@code " : "} in a map, without any comment. */
  private static String key(String element, boolean map) {
    var key = element.replaceAll(" comment \"[^\"]*\"", "");
    int colon = map ? key.indexOf(" : ") : -1;
    return (colon >= 0 ? key.substring(0, colon) : key).strip();
  }

  private void checkReferences() {
    chains.forEach(
        (name, chain) -> chain.rules().forEach(rule -> references(name + ": " + rule, rule)));
    sets.forEach(
        (name, set) -> set.elements().values().forEach(e -> references(name + ": " + e, e)));
  }

  private void references(String where, String text) {
    Matcher chain = CHAIN_REFERENCE.matcher(text);
    while (chain.find()) {
      if (!chains.containsKey(chain.group(1))) {
        throw new IllegalStateException("no chain " + chain.group(1) + " for " + where);
      }
    }
    Matcher set = SET_REFERENCE.matcher(text);
    while (set.find()) {
      if (!sets.containsKey(set.group(1))) {
        throw new IllegalStateException("no set " + set.group(1) + " for " + where);
      }
    }
    Matcher counter = COUNTER_REFERENCE.matcher(text);
    while (counter.find()) {
      if (!counters.contains(counter.group(1))) {
        throw new IllegalStateException("no counter " + counter.group(1) + " for " + where);
      }
    }
  }

  private void requireTable(String tableFamily, String table) {
    if (!exists || !tableFamily.equals(family) || !table.equals(NftNames.TABLE)) {
      throw new IllegalStateException("no table " + tableFamily + " " + table);
    }
  }

  private Set set(String name) {
    var set = sets.get(name);
    if (set == null) {
      throw new IllegalStateException("no set " + name);
    }
    return set;
  }

  private Chain chain(String name) {
    var chain = chains.get(name);
    if (chain == null) {
      throw new IllegalStateException("no chain " + name);
    }
    return chain;
  }

  private Map<String, Chain> copyChains() {
    var copy = new TreeMap<String, Chain>();
    chains.forEach(
        (name, chain) -> copy.put(name, new Chain(chain.spec(), new ArrayList<>(chain.rules()))));
    return copy;
  }

  private Map<String, Set> copySets() {
    var copy = new TreeMap<String, Set>();
    sets.forEach(
        (name, set) ->
            copy.put(name, new Set(set.kind(), set.body(), new LinkedHashMap<>(set.elements()))));
    return copy;
  }
}
