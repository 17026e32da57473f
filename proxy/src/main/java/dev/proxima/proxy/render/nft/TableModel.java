package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * What the Service ports add to the fixed table, reference-counted, since ports share some of it (a
 * hairpin pair, an {@code lb-N} chain). Contested map keys and counting keys go to the first
 * claimant in ServicePortName order.
 */
final class TableModel {
  final FamilySettings config;
  final FixedLayout fixed;
  private final UnaryOperator<String> nameHash;

  /** Each port's input: rendering it again gives what it added, which would cost more to keep. */
  final Map<ServicePortName, ServicePortRules> ports = new TreeMap<>();

  /** Per set, each element's number of users, in first-use order (the full script's order). */
  final Map<String, Map<NftElement, Integer>> elementUses = new LinkedHashMap<>();

  /** Per map (or lb-N group), the port holding each key: a key takes one value only. */
  private final Map<String, Map<String, ServicePortName>> keyOwners = new HashMap<>();

  private final Map<String, Integer> chainUses = new HashMap<>();
  final Map<String, NftChain> chainDeclarations = new LinkedHashMap<>();
  final Map<String, List<NftRule>> chainRules = new LinkedHashMap<>();
  final Map<String, NftSet> setDeclarations = new LinkedHashMap<>();

  /** The port each chain of one port alone ({@code sticky-}, {@code affinity-}, ...) is of. */
  private final Map<String, ServicePortName> chainOwners = new HashMap<>();

  // Read at scrape time from another thread.
  final Set<ServicePortName> countedPorts = ConcurrentHashMap.newKeySet();
  final Map<String, ServicePortName> countingOwners = new ConcurrentHashMap<>();

  /** For the few keys more than one port has. */
  private final Map<String, TreeSet<ServicePortName>> sharedCountingKeys = new HashMap<>();

  final List<String> warnings = new ArrayList<>();
  List<String> serviceCidrs = List.of();

  TableModel(FamilySettings config, FixedLayout fixed, UnaryOperator<String> nameHash) {
    this.config = config;
    this.fixed = fixed;
    this.nameHash = nameHash;
  }

  void rebuild(List<ServicePortRules> sorted, BiConsumer<ServicePortName, RenderPass> seen) {
    ports.clear();
    elementUses.clear();
    keyOwners.clear();
    chainUses.clear();
    chainDeclarations.clear();
    chainRules.clear();
    setDeclarations.clear();
    chainOwners.clear();
    countedPorts.clear();
    countingOwners.clear();
    sharedCountingKeys.clear();
    warnings.clear();
    warnings.addAll(fixed.warnings);
    for (var rules : sorted) {
      var parts = render(rules);
      if (add(rules.port().name(), rules, parts) && seen != null) {
        seen.accept(rules.port().name(), parts);
      }
    }
  }

  RenderPass render(ServicePortRules rules) {
    var parts = renderAgain(rules);
    warnings.addAll(parts.warnings);
    return parts;
  }

  /** For a port in the table already, whose warnings were reported. */
  RenderPass renderAgain(ServicePortRules rules) {
    return new RenderPass(config, nameHash).fragment(rules);
  }

  /** False, with a warning, when its own chain's hashed name is another port's: it stays out. */
  boolean add(ServicePortName port, ServicePortRules rules, RenderPass parts) {
    for (var chain : parts.chains.keySet()) {
      var owner = NftNames.isSharedChain(chain) ? null : chainOwners.get(chain);
      if (owner != null && !owner.equals(port)) {
        warnings.add(
            "%s: its chain %s has the name of %s's chain; port left out"
                .formatted(port, chain, owner));
        return false;
      }
      if (!sameSourcesAsInUse(chain, parts)) {
        warnings.add(
            port
                + ": its firewall chain "
                + chain
                + " has the name of another source-range list's; port left out");
        return false;
      }
    }
    parts.elements.forEach((set, elements) -> hold(port, set, distinct(elements)));
    parts.chains.forEach(
        (chain, line) -> {
          chainUses.merge(chain, 1, Integer::sum);
          chainDeclarations.putIfAbsent(chain, line);
          chainRules.put(chain, parts.rules.get(chain));
          if (!NftNames.isSharedChain(chain)) {
            chainOwners.put(chain, port);
          }
        });
    setDeclarations.putAll(parts.sets);
    if (parts.counted) {
      countedPorts.add(port);
      parts.countingKeys().forEach(key -> claimCounting(port, key));
    }
    ports.put(port, rules);
    return true;
  }

  /** Ports sharing a firewall chain (named by a hash of its ranges) must have its ranges. */
  private boolean sameSourcesAsInUse(String chain, RenderPass parts) {
    if (!NftNames.isFirewallChain(chain) || !chainUses.containsKey(chain)) {
      return true;
    }
    var inUse = elementUses.get(chain);
    var wanted = distinct(parts.elements.getOrDefault(chain, List.of()));
    if (inUse == null) {
      return wanted.isEmpty();
    }
    return inUse.size() == wanted.size() && wanted.stream().allMatch(inUse::containsKey);
  }

  void remove(
      ServicePortName port,
      RenderPass parts,
      Map<String, List<NftElement>> held,
      Map<String, NftChain> droppedChains,
      Collection<NftSet> droppedSets) {
    held.forEach(
        (set, elements) -> {
          var uses = elementUses.get(set);
          var owners = isMap(set) ? keyOwners.get(ownerGroup(set)) : null;
          for (var element : elements) {
            uses.computeIfPresent(element, (e, count) -> count > 1 ? count - 1 : null);
            if (owners != null) {
              owners.remove(element.key(), port);
            }
          }
        });
    for (var chain : parts.chains.keySet()) {
      if (chainUses.merge(chain, -1, Integer::sum) <= 0) {
        chainUses.remove(chain);
        chainRules.remove(chain);
        chainOwners.remove(chain);
        droppedChains.put(chain, chainDeclarations.remove(chain));
      }
    }
    for (var set : parts.sets.keySet()) {
      var declaration = setDeclarations.remove(set);
      if (declaration != null) {
        droppedSets.add(declaration);
      }
    }
    if (parts.counted) {
      countedPorts.remove(port);
      parts.countingKeys().forEach(key -> releaseCounting(port, key));
    }
    ports.remove(port);
  }

  private void hold(ServicePortName port, String set, List<NftElement> elements) {
    var owners =
        isMap(set) ? keyOwners.computeIfAbsent(ownerGroup(set), s -> new HashMap<>()) : null;
    for (var element : elements) {
      var owner = owners == null ? null : owners.putIfAbsent(element.key(), port);
      if (owner != null && !owner.equals(port)) {
        warnings.add(
            "%s: %s in %s is already held by %s; skipped"
                .formatted(port, element.key(), set, owner));
      } else {
        elementUses
            .computeIfAbsent(set, s -> new LinkedHashMap<>())
            .merge(element, 1, Integer::sum);
      }
    }
  }

  /** The elements of {@code parts} {@code port} holds; a set it holds none of is listed empty. */
  Map<String, List<NftElement>> held(ServicePortName port, RenderPass parts) {
    var held = new LinkedHashMap<String, List<NftElement>>();
    parts.elements.forEach(
        (set, elements) -> {
          var distinct = distinct(elements);
          var owners = isMap(set) ? keyOwners.get(ownerGroup(set)) : null;
          if (owners == null) {
            held.put(set, distinct);
            return;
          }
          held.put(set, distinct.stream().filter(e -> port.equals(owners.get(e.key()))).toList());
        });
    return held;
  }

  /** After DNAT two ports of one address, protocol and port look alike: the first counts both. */
  private void claimCounting(ServicePortName port, String key) {
    var owner = countingOwners.putIfAbsent(key, port);
    if (owner == null || owner.equals(port)) {
      return;
    }
    var sharing = sharedCountingKeys.computeIfAbsent(key, k -> new TreeSet<>());
    sharing.add(owner);
    sharing.add(port);
    var first = sharing.first();
    countingOwners.put(key, first);
    var other = first.equals(port) ? owner : port;
    warnings.add(
        "%s: its connections to %s are counted as %s's (same address and port)"
            .formatted(other, key, first));
  }

  private void releaseCounting(ServicePortName port, String key) {
    var sharing = sharedCountingKeys.get(key);
    if (sharing == null) {
      countingOwners.remove(key, port);
      return;
    }
    sharing.remove(port);
    countingOwners.put(key, sharing.first());
    if (sharing.size() == 1) {
      sharedCountingKeys.remove(key);
    }
  }

  void appendTo(NftTransaction out) {
    chainDeclarations.values().forEach(out::addChain);
    setDeclarations.values().forEach(out::addSet);
    chainRules.values().forEach(rules -> rules.forEach(out::addRule));
    elementUses.forEach((set, uses) -> out.addElements(set, List.copyOf(uses.keySet())));
    out.addKeys(NftNames.SERVICE_CIDRS, serviceCidrs);
  }

  long lines() {
    long lines = fixed.chains.size() + chainDeclarations.size() + setDeclarations.size();
    lines += chainRules.values().stream().mapToLong(List::size).sum();
    lines += elementUses.values().stream().mapToLong(Map::size).sum();
    return lines + serviceCidrs.size();
  }

  /** At least the whole script's length: a builder growing by doubling would copy megabytes. */
  int length(NftText text) {
    // "add chain|rule|set <family> proxima <name> ", the text after it, and the line's end.
    int prefix = 16 + text.table().length();
    long length = fixed.script.length();
    for (var chain : chainDeclarations.values()) {
      length += prefix + chain.name().length();
    }
    for (var set : setDeclarations.values()) {
      length += prefix + set.name().length() + set.declaration().length() + 8;
      if (set.comment() != null) {
        length += 14 + set.comment().length();
      }
    }
    for (var rules : chainRules.values()) {
      for (var rule : rules) {
        length += prefix + rule.chain().length() + rule.expression().length();
      }
    }
    for (var entry : elementUses.entrySet()) {
      // "add element <family> proxima <set> {\n", then "\t<element>,\n" each, then "}\n".
      length += 40 + entry.getKey().length();
      for (var element : entry.getValue().keySet()) {
        length += 3 + NftText.length(element);
      }
    }
    return (int) Math.min(length, Integer.MAX_VALUE - 16);
  }

  /** The renderer does not repeat an element within a set, so this normally does not copy. */
  static <E> List<E> distinct(List<E> elements) {
    int size = elements.size();
    boolean repeats = false;
    if (size > 16) {
      repeats = new HashSet<>(elements).size() != size;
    }
    // Short lists, the usual case, are compared pair by pair, which is cheaper than hashing them.
    for (int i = 1; i < size && size <= 16 && !repeats; i++) {
      for (int j = 0; j < i && !repeats; j++) {
        repeats = elements.get(i).equals(elements.get(j));
      }
    }
    return repeats ? List.copyOf(new LinkedHashSet<>(elements)) : elements;
  }

  /** A chain whose rules look up a map: nft 1.0.6 types it only where the map is declared. */
  static boolean looksUpMap(List<NftRule> rules) {
    return rules.stream().anyMatch(NftRule::mapLookup);
  }

  /** The {@code lb-N} maps of a prefix share their keys (a way in and an index). */
  private static String ownerGroup(String set) {
    if (!NftNames.isLbChain(set)) {
      return set;
    }
    int end = set.length();
    while (Character.isDigit(set.charAt(end - 1))) {
      end--;
    }
    return set.substring(0, end);
  }

  private boolean isMap(String set) {
    if (fixed.isMap(set)) {
      return true;
    }
    var declared = setDeclarations.get(set);
    // An lb-N chain's map, whether or not a port uses the chain now.
    return declared != null ? declared.isMap() : NftNames.isLbChain(set);
  }
}
