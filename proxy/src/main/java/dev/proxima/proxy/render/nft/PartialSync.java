package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Applies ports' changes to the model and writes the one transaction taking the kernel there. A
 * rule using a {@code typeof} map loads only with the map's declaration (nft 1.0.6), hence a map
 * per {@code lb-N} chain, whose rules never change.
 */
final class PartialSync {
  private PartialSync() {}

  static Optional<NftTransaction> apply(
      TableModel model,
      LoadedObjects loaded,
      NftText text,
      Instant now,
      Map<ServicePortName, ServicePortRules> changes) {
    // Only elements the changed ports had or have can come or go, so the cost follows the change.
    var touched = new LinkedHashMap<String, Map<NftElement, Boolean>>();
    var sorted = new TreeMap<>(changes);
    var dropped = new LinkedHashMap<String, NftChain>();
    var droppedSets = new ArrayList<NftSet>();
    // Every old fragment goes before any new one comes in, so a key handed on is found free.
    for (var port : sorted.keySet()) {
      var rules = model.ports.get(port);
      if (rules != null) {
        var old = model.renderAgain(rules);
        var held = model.held(port, old);
        held.forEach((set, elements) -> note(model, touched, set, elements));
        model.remove(port, old, held, dropped, droppedSets);
      }
    }
    sorted.forEach(
        (port, rules) -> {
          if (rules != null) {
            var fresh = model.render(rules);
            fresh.elements.forEach((set, e) -> note(model, touched, set, TableModel.distinct(e)));
            if (model.add(port, rules, fresh)) {
              loaded.revive(fresh);
            }
          }
        });
    for (var set : droppedSets) {
      if (!model.setDeclarations.containsKey(set.name()) && loaded.sets.contains(set.name())) {
        loaded.staleSet(set, now);
      }
    }
    var out = new NftTransaction(text);
    var newRules = new NftTransaction(text);
    for (var entry : model.chainRules.entrySet()) {
      var chain = entry.getKey();
      var wanted = entry.getValue();
      var inKernel = loaded.chains.get(chain);
      if (wanted.equals(inKernel)) {
        continue;
      }
      var declaration = model.chainDeclarations.get(chain);
      boolean loadedEmpty = inKernel == null || inKernel.isEmpty();
      if (TableModel.looksUpMap(wanted) && (declaration.map() == null || !loadedEmpty)) {
        return Optional.empty();
      }
      if (inKernel == null || declaration.map() != null) {
        // A chain with a map of its own is new, or was emptied with its map: both go in.
        out.addChain(declaration);
      } else {
        newRules.flushChain(chain);
      }
      wanted.forEach(newRules::addRule);
      loaded.chains.put(chain, wanted);
    }
    for (var set : model.setDeclarations.values()) {
      if (loaded.sets.add(set.name())) {
        out.addSet(set);
      }
    }
    dropped.forEach(
        (chain, declaration) -> {
          var inKernel = loaded.chains.get(chain);
          if (model.chainRules.containsKey(chain) || inKernel == null) {
            return; // used again, or never loaded
          }
          // An lb-N chain keeps its rule until the cleanup: nft 1.0.6 could not load it again.
          if (!inKernel.isEmpty() && declaration.map() == null) {
            newRules.flushChain(chain);
            loaded.chains.put(chain, List.of());
          }
          loaded.staleChain(chain, now);
          if (declaration.map() != null) {
            loaded.staleSet(declaration.map(), now);
          }
        });
    out.append(newRules);
    var deletes = new NftTransaction(text);
    var adds = new NftTransaction(text);
    touched.forEach(
        (set, before) -> {
          var uses = model.elementUses.get(set);
          var removed = new ArrayList<NftElement>();
          var added = new ArrayList<NftElement>();
          before.forEach(
              (element, wasThere) -> {
                boolean isThere = uses != null && uses.containsKey(element);
                if (wasThere && !isThere) {
                  removed.add(element);
                } else if (!wasThere && isThere) {
                  added.add(element);
                }
              });
          deletes.deleteElements(set, removed);
          adds.addElements(set, added);
        });
    return Optional.of(out.append(deletes).append(adds));
  }

  private static void note(
      TableModel model,
      Map<String, Map<NftElement, Boolean>> touched,
      String set,
      List<NftElement> elements) {
    var before = touched.computeIfAbsent(set, s -> new LinkedHashMap<>());
    var uses = model.elementUses.get(set);
    for (var element : elements) {
      before.putIfAbsent(element, uses != null && uses.containsKey(element));
    }
  }
}
