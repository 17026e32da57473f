package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.render.iptables.IptablesChains.CANARY;

import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A full sync as ordered {@code --noflush} buffers of about {@code lineBudget} lines, for a kernel
 * whose chains and dispatch rules are known: fixed chains, whole Service ports in name order, the
 * dispatch chains' fixed rules and leftovers, then stale chains (docs/architecture.md, "Syncs").
 * After every buffer no rule jumps to a missing chain and every port is wholly old or wholly new.
 * An existing dispatch chain is never declared, as that flushes it; old rules are deleted by
 * position, as {@code -D} by text makes iptables-nft compare it with every rule of the chain.
 */
final class FullSyncBatches {
  private static final List<String> TABLES = List.of("filter", "nat");

  private final int lineBudget;
  private final Map<String, Integer> written = new TreeMap<>();
  private final List<IptablesTransaction> buffers = new ArrayList<>();
  private final Map<String, Integer> inserted = new HashMap<>();

  /** Per table and dispatch chain, the owners of the old rules below the new ones, in order. */
  private final Map<String, List<Integer>> remaining = new HashMap<>();

  private final Set<Integer> healthPorts = new HashSet<>();
  private final Map<Integer, Integer> oldRules = new HashMap<>();

  private FullSyncBatches(int lineBudget) {
    this.lineBudget = lineBudget;
  }

  /** {@code fixed}: per table, each top-level chain with its fixed rules. */
  static Result split(
      Map<ServicePortName, ServiceChains> services,
      Map<String, Map<String, List<IptablesRule>>> fixed,
      Map<String, Set<String>> counters,
      Map<String, Set<String>> stale,
      IptablesListing kernel,
      int lineBudget) {
    var batches = new FullSyncBatches(Math.max(1, lineBudget));
    Map<String, List<ServiceChains>> byName = groups(services);
    List<List<ServiceChains>> groups = new ArrayList<>(byName.values());
    batches.readKernel(kernel, owners(byName.keySet()));
    batches.fixedChains(fixed, counters, kernel);
    batches.servicePorts(groups);
    batches.leftovers(fixed);
    batches.staleChains(stale);
    return new Result(List.copyOf(batches.buffers), Map.copyOf(batches.written));
  }

  record Result(List<IptablesTransaction> transactions, Map<String, Integer> written) {}

  /** Ports of one printed name (they differ by protocol) go together: their comments are one. */
  private static Map<String, List<ServiceChains>> groups(
      Map<ServicePortName, ServiceChains> services) {
    Map<String, List<ServiceChains>> byName = new LinkedHashMap<>();
    services.forEach(
        (name, chains) ->
            byName.computeIfAbsent(name.toString(), n -> new ArrayList<>()).add(chains));
    return byName;
  }

  /** Each group's index by its name as comments carry it; names alike once sanitised: the first. */
  private static Map<String, Integer> owners(Set<String> names) {
    Map<String, Integer> owners = new HashMap<>();
    int index = 0;
    for (String name : names) {
      owners.putIfAbsent(IptablesRestoreText.commentText(name), index++);
    }
    return owners;
  }

  /** The group owning an old dispatch rule by its comment, or -1 (fixed, or no wanted port's). */
  static int owner(String table, IptablesListing.SavedRule rule, Map<String, Integer> owners) {
    String name = DispatchComments.name(table, rule.chain(), rule.comment());
    return name == null ? -1 : owners.getOrDefault(name, -1);
  }

  private void readKernel(IptablesListing kernel, Map<String, Integer> owners) {
    for (var table : kernel.dispatchRules().entrySet()) {
      for (IptablesListing.SavedRule rule : table.getValue()) {
        int owner = owner(table.getKey(), rule, owners);
        remaining
            .computeIfAbsent(key(table.getKey(), rule.chain()), k -> new ArrayList<>())
            .add(owner);
        oldRules.merge(owner, 1, Integer::sum);
      }
    }
  }

  private void fixedChains(
      Map<String, Map<String, List<IptablesRule>>> fixed,
      Map<String, Set<String>> counters,
      IptablesListing kernel) {
    IptablesTransaction out = new IptablesTransaction();
    out.declare("mangle", CANARY);
    for (String table : TABLES) {
      Set<String> dispatch = IptablesListing.DISPATCH_CHAINS.get(table);
      Set<String> present = kernel.chains().getOrDefault(table, Set.of());
      out.declare(table, CANARY);
      Set<String> tableCounters = counters.getOrDefault(table, Set.of());
      tableCounters.forEach(chain -> out.declare(table, chain));
      for (String chain : fixed.get(table).keySet()) {
        if (!dispatch.contains(chain) || !present.contains(chain)) {
          out.declare(table, chain);
        }
      }
      tableCounters.forEach(chain -> rule(out, IptablesCounters.rule(table, chain)));
      fixed.get(table).entrySet().stream()
          .filter(entry -> !dispatch.contains(entry.getKey()))
          .forEach(entry -> entry.getValue().forEach(rule -> rule(out, rule)));
    }
    buffers.add(out);
  }

  /** Whole groups, as many per buffer as the budget takes (a larger group goes alone). */
  private void servicePorts(List<List<ServiceChains>> groups) {
    List<Integer> batch = new ArrayList<>();
    int lines = 0;
    for (int group = 0; group < groups.size(); group++) {
      int size = lines(groups.get(group), group);
      if (!batch.isEmpty() && lines + size > lineBudget) {
        write(groups, batch);
        batch = new ArrayList<>();
        lines = 0;
      }
      batch.add(group);
      lines += size;
    }
    if (!batch.isEmpty()) {
      write(groups, batch);
    }
  }

  private int lines(List<ServiceChains> group, int index) {
    return oldRules.getOrDefault(index, 0) + group.stream().mapToInt(ServiceChains::lines).sum();
  }

  /** Whole groups: own chains first, for the dispatch rules to find; old rules go with them. */
  private void write(List<List<ServiceChains>> groups, List<Integer> batch) {
    IptablesTransaction out = new IptablesTransaction();
    Set<Integer> members = new HashSet<>(batch);
    for (String table : TABLES) {
      if (table.equals("nat")) {
        for (int index : batch) {
          groups
              .get(index)
              .forEach(service -> service.ownChains().keySet().forEach(c -> out.declare(table, c)));
        }
        for (int index : batch) {
          for (ServiceChains service : groups.get(index)) {
            service.ownChains().values().forEach(rules -> rules.forEach(r -> rule(out, r)));
          }
        }
      }
      for (String chain : dispatchChains(table)) {
        deleteOld(out, table, chain, members::contains);
      }
      for (int index : batch) {
        for (ServiceChains service : groups.get(index)) {
          for (IptablesRule shared : service.shared()) {
            if (shared.table().equals(table)) {
              insert(out, shared);
            }
          }
          if (table.equals("filter")
              && service.healthCheck() != null
              && healthPorts.add(service.healthCheckNodePort())) {
            insert(out, service.healthCheck());
          }
        }
      }
    }
    buffers.add(out);
  }

  /** A rule goes in below the new rules already at the top of its chain. */
  private void insert(IptablesTransaction out, IptablesRule rule) {
    int position = inserted.merge(key(rule.table(), rule.chain()), 1, Integer::sum);
    written.merge(rule.table(), 1, Integer::sum);
    out.insert(rule, position);
  }

  /** Deletes, highest position first, the old rules of a chain that {@code which} selects. */
  private void deleteOld(
      IptablesTransaction out, String table, String chain, java.util.function.IntPredicate which) {
    List<Integer> old = remaining.get(key(table, chain));
    if (old == null) {
      return;
    }
    int top = inserted.getOrDefault(key(table, chain), 0);
    List<Integer> kept = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    for (int i = 0; i < old.size(); i++) {
      if (which.test(old.get(i))) {
        positions.add(top + i + 1);
      } else {
        kept.add(old.get(i));
      }
    }
    for (int i = positions.size() - 1; i >= 0; i--) {
      out.deleteAt(table, chain, positions.get(i));
    }
    remaining.put(key(table, chain), kept);
  }

  /** The dispatch chains' fixed rules (the NodePort jump last), then every unowned old rule. */
  private void leftovers(Map<String, Map<String, List<IptablesRule>>> fixed) {
    IptablesTransaction out = new IptablesTransaction();
    for (String table : TABLES) {
      for (String chain : dispatchChains(table)) {
        for (IptablesRule rule : fixed.get(table).getOrDefault(chain, List.of())) {
          rule(out, rule);
        }
      }
      for (String chain : dispatchChains(table)) {
        deleteOld(out, table, chain, owner -> true);
      }
    }
    packed(out);
  }

  /** Stale chains: all flushed before any is deleted, so none is still a target when it goes. */
  private void staleChains(Map<String, Set<String>> stale) {
    IptablesTransaction out = new IptablesTransaction();
    stale.forEach((table, chains) -> chains.forEach(c -> out.declare(table, c)));
    stale.forEach((table, chains) -> chains.forEach(c -> out.deleteChain(table, c)));
    packed(out);
  }

  private void packed(IptablesTransaction all) {
    IptablesTransaction out = new IptablesTransaction();
    for (IptablesTransaction.Op op : all.ops()) {
      if (out.size() >= lineBudget) {
        buffers.add(out);
        out = new IptablesTransaction();
      }
      out.add(op);
    }
    if (!out.isEmpty()) {
      buffers.add(out);
    }
  }

  private void rule(IptablesTransaction out, IptablesRule rule) {
    written.merge(rule.table(), 1, Integer::sum);
    out.append(rule);
  }

  private static Set<String> dispatchChains(String table) {
    return new java.util.TreeSet<>(IptablesListing.DISPATCH_CHAINS.get(table));
  }

  private static String key(String table, String chain) {
    return table + ' ' + chain;
  }
}
