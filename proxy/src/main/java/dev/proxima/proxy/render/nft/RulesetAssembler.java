package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Keeps one family's ruleset as per-Service-port fragments, so a sync renders only the Service
 * ports that changed and loads only what that changes in the kernel.
 *
 * <p>Each fragment is what that one port adds to the fixed table (the layout {@link NftRenderer}
 * describes): its set and map elements, and the chains and sets it needs ({@code lb-N}, affinity
 * chains). Elements and chains that several ports share (a hairpin pair, an {@code lb-2} chain) are
 * reference-counted: a delete is sent only when the last port stops using them. Ownership of
 * contested address keys is decided before the ports get here ({@link
 * dev.proxima.proxy.plan.AddressOwners}); should two ports still claim one map key, the one earlier
 * in ServicePortName order keeps it, as in a full render.
 *
 * <p>A chain or set nothing uses any more is stale: the transaction that stops using it flushes it
 * (a chain) and takes out what refers to it, and {@link #staleCleanup()} deletes it in a later
 * transaction, once it has been stale for {@link #STALE_DELAY}. It cannot go in the same
 * transaction: kernels before 6.2 notice only after a transaction that a deleted map element no
 * longer refers to a chain, and refuse to delete the chain until then. A port that uses a stale
 * chain or set again before then takes it back, and nothing deletes it. Shared chains whose rules
 * look up a map (the {@code lb-N} chains) stay loaded instead: only a full sync could load them
 * again, and there is one per endpoint count, not one per Service.
 */
public final class RulesetAssembler {
  /** How long a chain or set stays stale before {@link #staleCleanup()} deletes it. */
  public static final Duration STALE_DELAY = Duration.ofSeconds(1);

  private final FamilySettings config;
  private final Clock clock;
  private final NftText text;
  private final String fixedScript;
  private final FixedTable fixed;

  /**
   * Each port's input. Rendering is deterministic, so rendering it again when the port changes or
   * goes gives back exactly the elements, chains and sets it added; keeping those instead would
   * cost several hundred bytes per port.
   */
  private final Map<ServicePortName, ServicePortRules> ports = new TreeMap<>();

  private final Map<String, ElementUses> elementUses = new LinkedHashMap<>();
  private final Map<String, KeyOwners> keyOwners = new HashMap<>();
  private final Map<String, Integer> chainUses = new HashMap<>();
  private final Map<String, String> chainDeclarations = new LinkedHashMap<>();
  private final Map<String, List<String>> chainRules = new LinkedHashMap<>();
  private final Map<String, String> setDeclarations = new LinkedHashMap<>();
  private final Map<String, List<String>> kernelChains = new HashMap<>();
  private final Set<String> kernelSets = new LinkedHashSet<>();
  private final List<String> warnings = new ArrayList<>();

  /** Chains in the kernel that nothing uses, flushed, with the time they became stale. */
  private final Map<String, Instant> staleChains = new LinkedHashMap<>();

  /** Sets and maps in the kernel that nothing uses, with their kind and stale time. */
  private final Map<String, StaleSet> staleSets = new LinkedHashMap<>();

  /** Chains whose last user went in the update under way: flushed and marked stale at its end. */
  private final Set<String> dropped = new LinkedHashSet<>();

  private record StaleSet(String kind, Instant since) {}

  /**
   * A transaction deleting stale chains and sets; pass it to {@link #staleDeleted} once the kernel
   * took it, or to {@link #staleKept} when it refused it.
   *
   * @param script the nft transaction
   * @param chains the chains it deletes
   * @param sets the sets and maps it deletes
   */
  public record StaleCleanup(String script, List<String> chains, List<String> sets) {}

  /** The elements of {@code service-cidrs}: canonical, outermost only (an interval set). */
  private List<String> serviceCidrs = List.of();

  public RulesetAssembler(FamilySettings config) {
    this(config, Clock.systemUTC());
  }

  /**
   * @param clock when chains and sets become stale, and when they are old enough to delete
   */
  public RulesetAssembler(FamilySettings config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.text = new NftText(config.family());
    this.fixed = new RenderPass(config).fixedTable();
    this.fixedScript = fixed.script();
  }

  /** Replaces every fragment, e.g. for a full sync; returns the script that replaces the table. */
  public String replaceAll(List<ServicePortRules> ports) {
    return replaceAll(ports, null);
  }

  /**
   * Replaces every fragment, and returns the script that takes the kernel's table there in one
   * transaction while keeping the ClientIP affinity sets that are still wanted, with their
   * elements: every chain is flushed, base chains and unneeded sets, maps and empty chains are
   * deleted, and everything is declared again ({@code add} leaves an existing regular chain or a
   * kept set in place). Nothing that could still be referenced is deleted, so older kernels, which
   * notice only after the transaction that a deleted map element no longer refers to a chain,
   * accept it: a chain that stops being used is flushed now and stale, for {@link #staleCleanup()}
   * to delete a second later (or the next full sync, which deletes the empty chains it finds).
   *
   * @param kernel what the table holds now; null replaces the whole table, affinity memory and all
   */
  public String replaceAll(List<ServicePortRules> ports, KernelTable kernel) {
    this.ports.clear();
    elementUses.clear();
    keyOwners.clear();
    chainUses.clear();
    chainDeclarations.clear();
    chainRules.clear();
    setDeclarations.clear();
    warnings.clear();
    warnings.addAll(fixed.warnings());
    staleChains.clear();
    staleSets.clear();
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    for (var rules : sorted) {
      add(rules.port().name(), rules, render(rules));
    }
    kernelChains.clear();
    kernelChains.putAll(chainRules);
    kernelSets.clear();
    kernelSets.addAll(setDeclarations.keySet());
    return kernel == null ? fullScript() : keepingAffinity(kernel);
  }

  /**
   * Forgets the stale chains and sets, for when the kernel's table was replaced whole, or may not
   * hold what this assembler thinks (a transaction failed): the next full sync finds them again.
   */
  public void forgetStale() {
    staleChains.clear();
    staleSets.clear();
  }

  private String keepingAffinity(KernelTable kernel) {
    var lines = fixedScript.split("\n", 4);
    if (lines.length < 4 || !lines[1].startsWith("delete table ")) {
      throw new IllegalStateException("the fixed script no longer starts by replacing the table");
    }
    var out = new StringBuilder(fullScriptLengthEstimate());
    out.append(lines[0]).append('\n');
    var now = clock.instant();
    kernel
        .chains()
        .forEach(
            (chain, kind) -> {
              if (!kind.empty()) {
                text.flushChain(out, chain);
              }
            });
    kernel
        .chains()
        .forEach(
            (chain, kind) -> {
              boolean wanted =
                  chainDeclarations.containsKey(chain) || fixed.chains().contains(chain);
              if (kind.base() || (kind.empty() && !wanted)) {
                text.deleteChain(out, chain);
              } else if (!wanted) {
                // Flushed above; a later transaction can delete it.
                staleChains.put(chain, now);
                kernelChains.put(chain, List.of());
              }
            });
    kernel
        .sets()
        .forEach(
            (set, kind) -> {
              boolean kept =
                  set.startsWith(NftNames.AFFINITY_PREFIX)
                      && kind.equals("set")
                      && setDeclarations.containsKey(set);
              if (!kept) {
                text.deleteSet(out, kind, set);
              }
            });
    out.append(lines[3]);
    appendFragments(out);
    return out.toString();
  }

  /**
   * Applies changes to some ports (a null value removes the port) and returns the transaction that
   * takes the kernel there, or empty when only a full replacement can. After an empty result the
   * caller must call {@link #replaceAll}.
   *
   * <p>No partial transaction is possible when a rule that looks up a map must be added: nft 1.0.6
   * cannot rebuild a {@code typeof} map's key type from the kernel ("conflicting protocols
   * specified: ip vs. th"), so a rule using such a map only loads in the transaction that declares
   * the map. In practice that is a new endpoint count no other Service port had, which is rare in a
   * running cluster.
   */
  public Optional<String> update(Map<ServicePortName, ServicePortRules> changes) {
    // Only elements the changed ports had or have can appear or disappear: note whether each was
    // in the table before, so the cost follows the change, not the table.
    var touched = new LinkedHashMap<String, Map<String, Boolean>>();
    var sorted = new TreeMap<>(changes);
    dropped.clear();
    // Every old fragment goes before any new one comes in: when a change hands a key from one port
    // to another, the new owner must find it free, whatever the order of their names.
    for (var port : sorted.keySet()) {
      var old = ports.get(port);
      if (old != null) {
        var oldParts = renderAgain(old);
        var held = held(port, oldParts);
        held.forEach((set, elements) -> note(touched, set, elements));
        remove(port, oldParts, held);
      }
    }
    for (var entry : sorted.entrySet()) {
      if (entry.getValue() != null) {
        var fresh = render(entry.getValue());
        fresh.elements().forEach((set, elements) -> note(touched, set, distinct(elements)));
        add(entry.getKey(), entry.getValue(), fresh);
      }
    }
    var out = new StringBuilder();
    var newRules = new StringBuilder();
    for (var chain : chainRules.keySet()) {
      var wanted = chainRules.get(chain);
      var inKernel = kernelChains.get(chain);
      if (wanted.equals(inKernel)) {
        continue;
      }
      if (wanted.stream().anyMatch(rule -> rule.contains(" map @"))) {
        return Optional.empty();
      }
      if (inKernel == null) {
        out.append(chainDeclarations.get(chain)).append('\n');
      } else {
        text.flushChain(newRules, chain);
      }
      wanted.forEach(rule -> newRules.append(rule).append('\n'));
      kernelChains.put(chain, wanted);
    }
    for (var set : setDeclarations.keySet()) {
      if (kernelSets.add(set)) {
        out.append(setDeclarations.get(set)).append('\n');
      }
    }
    var now = clock.instant();
    for (var chain : dropped) {
      var inKernel = kernelChains.get(chain);
      if (chainRules.containsKey(chain) || inKernel == null) {
        continue; // used again, or never loaded
      }
      if (inKernel.stream().anyMatch(rule -> rule.contains(" map @"))) {
        // A shared lb-N chain: a partial sync cannot load a map-lookup rule again (nft 1.0.6
        // refuses it; see the loop above), so it stays loaded for the next port with N endpoints.
        // There are only a few of them.
        continue;
      }
      if (!inKernel.isEmpty()) {
        text.flushChain(newRules, chain);
        kernelChains.put(chain, List.of());
      }
      staleChains.putIfAbsent(chain, now);
    }
    dropped.clear();
    out.append(newRules);
    var deletes = new StringBuilder();
    var adds = new StringBuilder();
    touched.forEach(
        (set, before) -> {
          var uses = elementUses.get(set);
          boolean map = isMap(set);
          var removed = new ArrayList<String>();
          var added = new ArrayList<String>();
          before.forEach(
              (element, wasThere) -> {
                boolean isThere = uses != null && uses.contains(element);
                if (wasThere && !isThere) {
                  removed.add(NftText.key(element, map));
                } else if (!wasThere && isThere) {
                  added.add(element);
                }
              });
          text.deleteElements(deletes, set, removed);
          text.addElements(adds, set, added);
        });
    out.append(deletes).append(adds);
    return Optional.of(out.toString());
  }

  private void note(Map<String, Map<String, Boolean>> touched, String set, List<String> elements) {
    var before = touched.computeIfAbsent(set, s -> new LinkedHashMap<>());
    var uses = elementUses.get(set);
    for (var element : elements) {
      before.putIfAbsent(element, uses != null && uses.contains(element));
    }
  }

  /**
   * Sets the Service CIDRs (the ServiceCIDR objects' ranges, any family; the other family's and
   * malformed ones are left out) and returns the transaction that takes the kernel's {@code
   * service-cidrs} set there: only the ranges that came or went, so a change costs what changed.
   * The next {@link #fullScript()} includes them.
   */
  public String serviceCidrs(List<String> cidrs) {
    var parsed = new ArrayList<Cidr>();
    for (var text : cidrs) {
      NftAddresses.parseCidr(text, config.family()).ifPresent(parsed::add);
    }
    var wanted = NftAddresses.outermost(parsed).stream().map(Object::toString).toList();
    var removed = serviceCidrs.stream().filter(cidr -> !wanted.contains(cidr)).toList();
    var added = wanted.stream().filter(cidr -> !serviceCidrs.contains(cidr)).toList();
    serviceCidrs = wanted;
    var out = new StringBuilder();
    // Deletes first: a range that grew replaces the smaller one, and interval sets refuse overlaps.
    text.deleteElements(out, NftNames.SERVICE_CIDRS, removed);
    text.addElements(out, NftNames.SERVICE_CIDRS, added);
    return out.toString();
  }

  /**
   * The transaction deleting the chains and sets stale for at least {@link #STALE_DELAY}, or empty
   * when none is. Nothing refers to them any more: the transaction that made them stale took out
   * every rule and element that did, and a port that used one again took it back.
   */
  public Optional<StaleCleanup> staleCleanup() {
    var due = clock.instant().minus(STALE_DELAY);
    var out = new StringBuilder();
    var chains = new ArrayList<String>();
    var sets = new ArrayList<String>();
    staleChains.forEach(
        (chain, since) -> {
          if (!since.isAfter(due)) {
            chains.add(chain);
            text.deleteChain(out, chain);
          }
        });
    staleSets.forEach(
        (set, stale) -> {
          if (!stale.since().isAfter(due)) {
            sets.add(set);
            text.deleteSet(out, stale.kind(), set);
          }
        });
    if (chains.isEmpty() && sets.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new StaleCleanup(out.toString(), List.copyOf(chains), List.copyOf(sets)));
  }

  /** The kernel took {@code cleanup}: its chains and sets are gone. */
  public void staleDeleted(StaleCleanup cleanup) {
    for (var chain : cleanup.chains()) {
      if (staleChains.remove(chain) != null) {
        kernelChains.remove(chain);
      }
    }
    for (var set : cleanup.sets()) {
      if (staleSets.remove(set) != null) {
        kernelSets.remove(set);
      }
    }
  }

  /**
   * The kernel refused {@code cleanup}: its chains and sets stay stale, and are due again {@code
   * retry} from now, so a lasting refusal is not retried every second.
   */
  public void staleKept(StaleCleanup cleanup, Duration retry) {
    var later = clock.instant().plus(retry).minus(STALE_DELAY);
    cleanup.chains().forEach(chain -> staleChains.computeIfPresent(chain, (c, since) -> later));
    cleanup
        .sets()
        .forEach(
            set ->
                staleSets.computeIfPresent(set, (s, stale) -> new StaleSet(stale.kind(), later)));
  }

  /** How many chains and sets are stale: in the kernel, unused, not deleted yet. */
  public int stalePending() {
    return staleChains.size() + staleSets.size();
  }

  /** The complete script replacing the table with the current fragments. */
  public String fullScript() {
    var out = new StringBuilder(fullScriptLengthEstimate());
    out.append(fixedScript);
    appendFragments(out);
    return out.toString();
  }

  /** Everything the Service ports add to the fixed table: declarations, rules, elements. */
  private void appendFragments(StringBuilder out) {
    chainDeclarations.forEach((chain, line) -> out.append(line).append('\n'));
    setDeclarations.forEach((set, line) -> out.append(line).append('\n'));
    chainRules.forEach((chain, rules) -> rules.forEach(rule -> out.append(rule).append('\n')));
    elementUses.forEach((set, uses) -> text.addElements(out, set, uses.inUseOrder()));
    text.addElements(out, NftNames.SERVICE_CIDRS, serviceCidrs);
  }

  /**
   * About as long as {@link #fullScript()}, and not shorter: the script runs to megabytes, and a
   * builder that grows by doubling copies it several times and holds two copies while it does.
   */
  private int fullScriptLengthEstimate() {
    long length = fixedScript.length();
    for (var line : chainDeclarations.values()) {
      length += line.length() + 1;
    }
    for (var line : setDeclarations.values()) {
      length += line.length() + 1;
    }
    for (var rules : chainRules.values()) {
      for (var rule : rules) {
        length += rule.length() + 1;
      }
    }
    for (var entry : elementUses.entrySet()) {
      // "add element <family> proxima <set> {\n", then "\t<element>,\n" each, then "}\n".
      length +=
          40 + entry.getKey().length() + entry.getValue().chars() + 3L * entry.getValue().size();
    }
    return (int) Math.min(length, Integer.MAX_VALUE - 16);
  }

  /**
   * Inputs left out since the last {@link #replaceAll}, such as keys another port already holds.
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  /** Renders one port's part of the table; its warnings count as the assembler's. */
  private ServiceFragment render(ServicePortRules rules) {
    var parts = new RenderPass(config).fragment(rules);
    warnings.addAll(parts.warnings());
    return parts;
  }

  /**
   * Renders a port that is already in the table, to take it out: its warnings were reported when it
   * came in.
   */
  private ServiceFragment renderAgain(ServicePortRules rules) {
    return new RenderPass(config).fragment(rules);
  }

  private void add(ServicePortName port, ServicePortRules rules, ServiceFragment parts) {
    parts.elements().forEach((set, elements) -> hold(port, set, distinct(elements)));
    parts
        .chains()
        .forEach(
            (chain, line) -> {
              chainUses.merge(chain, 1, Integer::sum);
              chainDeclarations.putIfAbsent(chain, line);
              chainRules.put(chain, parts.rules().get(chain));
              staleChains.remove(chain);
            });
    setDeclarations.putAll(parts.sets());
    parts.sets().keySet().forEach(staleSets::remove);
    ports.put(port, rules);
  }

  /**
   * Counts {@code port}'s use of its elements of {@code set}: in a map, a key another port holds
   * stays with that port, and a warning says so.
   */
  private void hold(ServicePortName port, String set, List<String> elements) {
    boolean map = isMap(set);
    var owners = map ? keyOwners.computeIfAbsent(set, s -> new KeyOwners()) : null;
    for (var element : elements) {
      if (map) {
        var key = NftText.key(element, true);
        var owner = owners.claim(key, element, port);
        if (owner != null) {
          warnings.add(
              port + ": " + key + " in " + set + " is already held by " + owner + "; skipped");
          continue;
        }
      }
      elementUses.computeIfAbsent(set, s -> new ElementUses()).use(element);
    }
  }

  /**
   * The elements of {@code parts}, which {@code port} added, that it holds now, per set in the
   * renderer's order; a set whose elements all went to other ports is listed with none, because the
   * sets a change touches are listed in that order. A map element is held exactly when its port
   * holds its key: a port that lost a key when it came in cannot get it without coming in again.
   */
  private Map<String, List<String>> held(ServicePortName port, ServiceFragment parts) {
    var held = new LinkedHashMap<String, List<String>>();
    parts
        .elements()
        .forEach(
            (set, elements) -> {
              var distinct = distinct(elements);
              var owners = isMap(set) ? keyOwners.get(set) : null;
              if (owners == null) {
                held.put(set, distinct);
                return;
              }
              var ofSet = new ArrayList<String>(distinct.size());
              for (var element : distinct) {
                if (port.equals(owners.holder(NftText.key(element, true)))) {
                  ofSet.add(element);
                }
              }
              held.put(set, ofSet);
            });
    return held;
  }

  private void remove(ServicePortName port, ServiceFragment parts, Map<String, List<String>> held) {
    held.forEach(
        (set, elements) -> {
          var uses = elementUses.get(set);
          var owners = isMap(set) ? keyOwners.get(set) : null;
          for (var element : elements) {
            uses.release(element);
            if (owners != null) {
              owners.release(NftText.key(element, true), port);
            }
          }
        });
    parts
        .chains()
        .keySet()
        .forEach(
            chain -> {
              if (chainUses.merge(chain, -1, Integer::sum) <= 0) {
                chainUses.remove(chain);
                chainDeclarations.remove(chain);
                chainRules.remove(chain);
                dropped.add(chain);
              }
            });
    var now = clock.instant();
    for (var set : parts.sets().keySet()) {
      var declaration = setDeclarations.remove(set);
      if (declaration != null && kernelSets.contains(set)) {
        // "add set ..." or "add map ...": its second word is what deletes it.
        staleSets.putIfAbsent(set, new StaleSet(declaration.split(" ", 3)[1], now));
      }
    }
    ports.remove(port);
  }

  /**
   * The elements once each, in first-seen order; the renderer does not repeat an element within a
   * set, so this normally returns {@code elements} itself without copying.
   */
  private static List<String> distinct(List<String> elements) {
    if (hasNoRepeats(elements)) {
      return elements;
    }
    return List.copyOf(new LinkedHashSet<>(elements));
  }

  /** Short lists, the usual case, are compared pair by pair, which is cheaper than hashing them. */
  private static boolean hasNoRepeats(List<String> elements) {
    int size = elements.size();
    if (size > 16) {
      return new HashSet<>(elements).size() == size;
    }
    for (int i = 1; i < size; i++) {
      for (int j = 0; j < i; j++) {
        if (elements.get(i).equals(elements.get(j))) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean isMap(String set) {
    return fixed.maps().contains(set)
        || setDeclarations.getOrDefault(set, "").startsWith("add map");
  }
}
