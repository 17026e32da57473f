package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.HashMap;
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
 * <p>Each fragment is what {@link NftRenderer} writes for that one port beyond the fixed table: its
 * set and map elements, and the chains and sets it needs ({@code lb-N}, affinity chains). Elements
 * and chains that several ports share (a hairpin pair, an {@code lb-2} chain) are
 * reference-counted: a delete is sent only when the last port stops using them. When two ports
 * claim the same map key, the one earlier in ServicePortName order keeps it, as in a full render.
 *
 * <p>Chains and sets nothing uses any more stay in the kernel until the next full sync, which
 * rebuilds the table; they are unreferenced and do nothing.
 */
public final class RulesetAssembler {
  private final NftConfig config;
  private final String fixedScript;
  private final NftScriptDiff.Parsed fixed;
  private final Map<ServicePortName, Fragment> fragments = new TreeMap<>();
  private final Map<String, Map<String, Integer>> elementUses = new LinkedHashMap<>();
  private final Map<String, Map<String, ServicePortName>> keyOwners = new HashMap<>();
  private final Map<String, Integer> chainUses = new HashMap<>();
  private final Map<String, String> chainDeclarations = new LinkedHashMap<>();
  private final Map<String, List<String>> chainRules = new LinkedHashMap<>();
  private final Map<String, String> setDeclarations = new LinkedHashMap<>();
  private final Map<String, List<String>> kernelChains = new HashMap<>();
  private final Set<String> kernelSets = new LinkedHashSet<>();
  private final List<String> warnings = new ArrayList<>();

  /** What one Service port adds to the fixed table. */
  private record Fragment(
      Map<String, String> chains,
      Map<String, List<String>> rules,
      Map<String, String> sets,
      Map<String, Set<String>> elements) {}

  public RulesetAssembler(NftConfig config) {
    this.config = config;
    this.fixedScript = NftRenderer.render(config, List.of());
    this.fixed = NftScriptDiff.Parsed.of(fixedScript);
  }

  /** Replaces every fragment, e.g. for a full sync; returns the script that replaces the table. */
  public String replaceAll(List<ServicePortRules> ports) {
    fragments.clear();
    elementUses.clear();
    keyOwners.clear();
    chainUses.clear();
    chainDeclarations.clear();
    chainRules.clear();
    setDeclarations.clear();
    warnings.clear();
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    for (var rules : sorted) {
      add(rules.port().name(), fragmentOf(rules));
    }
    kernelChains.clear();
    kernelChains.putAll(chainRules);
    kernelSets.clear();
    kernelSets.addAll(setDeclarations.keySet());
    return fullScript();
  }

  /**
   * Applies changes to some ports (a null value removes the port) and returns the transaction that
   * takes the kernel there, or empty when only a full replacement can (see {@link NftScriptDiff}).
   * After an empty result the caller must call {@link #replaceAll}.
   */
  public Optional<String> update(Map<ServicePortName, ServicePortRules> changes) {
    // Only elements the changed ports had or have can appear or disappear: note whether each was
    // in the table before, so the cost follows the change, not the table.
    var touched = new LinkedHashMap<String, Map<String, Boolean>>();
    for (var entry : new TreeMap<>(changes).entrySet()) {
      var old = fragments.get(entry.getKey());
      if (old != null) {
        note(touched, old.elements());
        remove(entry.getKey(), old);
      }
      if (entry.getValue() != null) {
        var fresh = fragmentOf(entry.getValue());
        note(touched, fresh.elements());
        add(entry.getKey(), fresh);
      }
    }
    var prefix = config.family().nft() + " " + NftNames.TABLE + " ";
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
        newRules.append("flush chain ").append(prefix).append(chain).append('\n');
      }
      wanted.forEach(rule -> newRules.append(rule).append('\n'));
      kernelChains.put(chain, wanted);
    }
    for (var set : setDeclarations.keySet()) {
      if (kernelSets.add(set)) {
        out.append(setDeclarations.get(set)).append('\n');
      }
    }
    out.append(newRules);
    var deletes = new StringBuilder();
    var adds = new StringBuilder();
    touched.forEach(
        (set, before) -> {
          var uses = elementUses.getOrDefault(set, Map.of());
          boolean map = isMap(set);
          var removed = new ArrayList<String>();
          var added = new ArrayList<String>();
          before.forEach(
              (element, wasThere) -> {
                boolean isThere = uses.getOrDefault(element, 0) > 0;
                if (wasThere && !isThere) {
                  removed.add(NftScriptDiff.key(element, map));
                } else if (!wasThere && isThere) {
                  added.add(element);
                }
              });
          NftScriptDiff.block(deletes, "delete element ", prefix, set, removed);
          NftScriptDiff.block(adds, "add element ", prefix, set, added);
        });
    out.append(deletes).append(adds);
    return Optional.of(out.toString());
  }

  private void note(Map<String, Map<String, Boolean>> touched, Map<String, Set<String>> elements) {
    elements.forEach(
        (set, list) -> {
          var before = touched.computeIfAbsent(set, s -> new LinkedHashMap<>());
          var uses = elementUses.getOrDefault(set, Map.of());
          for (var element : list) {
            before.putIfAbsent(element, uses.getOrDefault(element, 0) > 0);
          }
        });
  }

  /** The complete script replacing the table with the current fragments. */
  public String fullScript() {
    var out = new StringBuilder(fixedScript);
    chainDeclarations.forEach((chain, line) -> out.append(line).append('\n'));
    setDeclarations.forEach((set, line) -> out.append(line).append('\n'));
    chainRules.forEach((chain, rules) -> rules.forEach(rule -> out.append(rule).append('\n')));
    var prefix = config.family().nft() + " " + NftNames.TABLE + " ";
    snapshotElements()
        .forEach(
            (set, elements) ->
                NftScriptDiff.block(out, "add element ", prefix, set, List.copyOf(elements)));
    return out.toString();
  }

  /**
   * Inputs left out since the last {@link #replaceAll}, such as keys another port already holds.
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  private Fragment fragmentOf(ServicePortRules rules) {
    var parts = new RenderPass(config).fragment(rules);
    warnings.addAll(parts.warnings());
    var elements = new LinkedHashMap<String, Set<String>>();
    parts.elements().forEach((set, list) -> elements.put(set, new LinkedHashSet<>(list)));
    return new Fragment(parts.chains(), parts.rules(), parts.sets(), elements);
  }

  private void add(ServicePortName port, Fragment fragment) {
    var kept = new LinkedHashMap<String, Set<String>>();
    fragment
        .elements()
        .forEach(
            (set, elements) -> {
              boolean map = isMap(set);
              var keptOfSet = new LinkedHashSet<String>();
              for (var element : elements) {
                if (map) {
                  var key = NftScriptDiff.key(element, true);
                  var owners = keyOwners.computeIfAbsent(set, s -> new HashMap<>());
                  var owner = owners.get(key);
                  if (owner != null && !owner.equals(port)) {
                    warnings.add(
                        port
                            + ": "
                            + key
                            + " in "
                            + set
                            + " is already held by "
                            + owner
                            + "; skipped");
                    continue;
                  }
                  owners.put(key, port);
                }
                keptOfSet.add(element);
                elementUses
                    .computeIfAbsent(set, s -> new LinkedHashMap<>())
                    .merge(element, 1, Integer::sum);
              }
              kept.put(set, keptOfSet);
            });
    fragment
        .chains()
        .forEach(
            (chain, line) -> {
              chainUses.merge(chain, 1, Integer::sum);
              chainDeclarations.putIfAbsent(chain, line);
              chainRules.put(chain, fragment.rules().get(chain));
            });
    setDeclarations.putAll(fragment.sets());
    fragments.put(port, new Fragment(fragment.chains(), fragment.rules(), fragment.sets(), kept));
  }

  private void remove(ServicePortName port, Fragment fragment) {
    fragment
        .elements()
        .forEach(
            (set, elements) -> {
              var uses = elementUses.get(set);
              for (var element : elements) {
                if (uses.merge(element, -1, Integer::sum) <= 0) {
                  uses.remove(element);
                }
                if (isMap(set)) {
                  keyOwners.get(set).remove(NftScriptDiff.key(element, true), port);
                }
              }
            });
    fragment
        .chains()
        .keySet()
        .forEach(
            chain -> {
              if (chainUses.merge(chain, -1, Integer::sum) <= 0) {
                chainUses.remove(chain);
                chainDeclarations.remove(chain);
                chainRules.remove(chain);
              }
            });
    fragment.sets().keySet().forEach(setDeclarations::remove);
    fragments.remove(port);
  }

  private Map<String, Set<String>> snapshotElements() {
    var snapshot = new LinkedHashMap<String, Set<String>>();
    elementUses.forEach(
        (set, uses) -> {
          if (!uses.isEmpty()) {
            snapshot.put(set, new LinkedHashSet<>(uses.keySet()));
          }
        });
    return snapshot;
  }

  private boolean isMap(String set) {
    return fixed.isMap(set)
        || "add map"
            .equals(
                setDeclarations
                    .getOrDefault(set, "")
                    .substring(0, Math.min(7, setDeclarations.getOrDefault(set, "").length())));
  }
}
