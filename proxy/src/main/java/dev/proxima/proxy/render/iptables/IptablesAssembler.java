package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.render.iptables.IptablesChains.CANARY;
import static dev.proxima.proxy.render.iptables.IptablesChains.EXTERNAL_SERVICES;
import static dev.proxima.proxy.render.iptables.IptablesChains.FIREWALL;
import static dev.proxima.proxy.render.iptables.IptablesChains.FORWARD;
import static dev.proxima.proxy.render.iptables.IptablesChains.MARK_MASQ;
import static dev.proxima.proxy.render.iptables.IptablesChains.MASQ_NON_POD;
import static dev.proxima.proxy.render.iptables.IptablesChains.NODEPORTS;
import static dev.proxima.proxy.render.iptables.IptablesChains.POSTROUTING;
import static dev.proxima.proxy.render.iptables.IptablesChains.SERVICES;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Keeps one family's iptables ruleset as per-Service fragments and writes {@code iptables-restore
 * --noflush} buffers: everything on a full sync; on a partial one the top-level chains (rewritten,
 * as kube-proxy does) and the changed Services' own chains. Counter chains ({@link
 * IptablesCounters}) are written only where the kernel lacks them, so their counts survive. Pure.
 */
public final class IptablesAssembler {
  // By name as printed (the order of the rules), then protocol: two ports of one name differ by it.
  private static final Comparator<ServicePortName> ORDER =
      Comparator.comparing((ServicePortName n) -> n.toString())
          .thenComparing(ServicePortName::protocol);

  private final FamilySettings config;
  private final Map<ServicePortName, ServicePortRules> inputs = new TreeMap<>(ORDER);
  private final Map<ServicePortName, ServiceChains> rendered = new TreeMap<>(ORDER);
  private final List<String> warnings = new ArrayList<>();
  private final Map<String, Integer> ruleCounts = new TreeMap<>();
  private final Map<String, Integer> lastWritten = new TreeMap<>();
  private boolean large;
  private int endpointTotal;
  private boolean initialised;

  /** Per table, the counter chains the kernel lacks, for the next buffer to create. */
  private final Map<String, Set<String>> countersToCreate = new TreeMap<>();

  private final Map<String, ServicePortName> counted = new TreeMap<>();

  public IptablesAssembler(FamilySettings config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  public FamilySettings config() {
    return config;
  }

  /**
   * The buffer that makes the kernel's Proxima chains ({@code existing}, empty when unknown)
   * exactly these ports': unwanted ones are deleted, missing counter chains created.
   */
  public String replaceAll(List<ServicePortRules> ports, Map<String, Set<String>> existing) {
    return String.join(
        "", replaceAllInBatches(ports, IptablesListing.ofChains(existing), Integer.MAX_VALUE));
  }

  /** {@link #replaceAll} with nothing in the kernel, as one transaction to add to. */
  IptablesTransaction replaceAllTransaction(List<ServicePortRules> ports) {
    return transactions(ports, IptablesListing.ofChains(Map.of()), Integer.MAX_VALUE).get(0);
  }

  /**
   * As {@link #replaceAll}, in buffers of about {@code lineBudget} lines ({@link FullSyncBatches});
   * one when the ruleset fits or the kernel's dispatch rules are unknown. iptables 1.8's nft
   * backend takes time quadratic in one buffer's rules, and a long restore holds the xtables lock.
   */
  public List<String> replaceAllInBatches(
      List<ServicePortRules> ports, IptablesListing kernel, int lineBudget) {
    return transactions(ports, kernel, lineBudget).stream().map(IptablesTransaction::text).toList();
  }

  private List<IptablesTransaction> transactions(
      List<ServicePortRules> ports, IptablesListing kernel, int lineBudget) {
    if (lineBudget < 1) {
      throw new IllegalArgumentException("lineBudget must be positive, got " + lineBudget);
    }
    warnings.clear();
    inputs.clear();
    rendered.clear();
    for (ServicePortRules rules : ports) {
      ServicePortName name = rules.port().name();
      if (inputs.containsKey(name)) {
        warnings.add(name + ": Service port given twice, later one skipped");
      } else {
        inputs.put(name, rules);
      }
    }
    endpointTotal =
        inputs.values().stream().mapToInt(ServiceChainsRenderer::endpointAddresses).sum();
    large = endpointTotal > IptablesRenderer.LARGE_CLUSTER_ENDPOINTS;
    initialised = true;
    counted.clear();
    inputs.forEach(
        (name, rules) -> {
          rendered.put(name, renderPort(rules));
          if (counts(rules)) {
            counted.put(IptablesChains.serviceCounterStem(name), name);
          }
        });

    Map<String, Set<String>> existing = kernel.chains();
    countersToCreate.clear();
    for (String table : List.of("filter", "nat")) {
      Set<String> missing = new LinkedHashSet<>(counterChains(table));
      missing.removeAll(existing.getOrDefault(table, Set.of()));
      if (!missing.isEmpty()) {
        countersToCreate.put(table, missing);
      }
    }
    Map<String, Set<String>> stale = new TreeMap<>();
    for (var entry : existing.entrySet()) {
      String table = entry.getKey();
      Set<String> wanted = wantedChains(table);
      for (String chain : new TreeSet<>(entry.getValue())) {
        if (chain.startsWith(IptablesChains.PREFIX) && !wanted.contains(chain)) {
          stale.computeIfAbsent(table, t -> new TreeSet<>()).add(chain);
        }
      }
    }
    long lines = 40 + rendered.values().stream().mapToLong(ServiceChains::lines).sum();
    if (!kernel.rulesKnown() || lines <= lineBudget) {
      return List.of(write(rendered.values(), stale, true));
    }
    Map<String, Map<String, List<IptablesRule>>> fixed = new TreeMap<>();
    for (String table : List.of("filter", "nat")) {
      fixed.put(table, sharedChains(table, List.of()));
    }
    var batches =
        FullSyncBatches.split(rendered, fixed, countersToCreate, stale, kernel, lineBudget);
    ruleCounts.clear();
    for (String table : List.of("filter", "nat")) {
      ruleCounts.put(table, ownedRules(table, sharedChains(table, rendered.values())));
    }
    lastWritten.clear();
    lastWritten.putAll(batches.written());
    return batches.transactions();
  }

  /**
   * The buffer for these changes (a null value removes the port), "" for none, or empty when only a
   * full sync can express them: before the first, or across the large-cluster threshold.
   */
  public Optional<String> update(Map<ServicePortName, ServicePortRules> changes) {
    if (!initialised) {
      return Optional.empty();
    }
    warnings.clear();
    int nextTotal = endpointTotal;
    for (var entry : changes.entrySet()) {
      ServicePortRules old = inputs.get(entry.getKey());
      nextTotal -= old == null ? 0 : ServiceChainsRenderer.endpointAddresses(old);
      nextTotal +=
          entry.getValue() == null ? 0 : ServiceChainsRenderer.endpointAddresses(entry.getValue());
    }
    if ((nextTotal > IptablesRenderer.LARGE_CLUSTER_ENDPOINTS) != large) {
      return Optional.empty();
    }
    endpointTotal = nextTotal;
    countersToCreate.clear();
    Set<String> uncounted = new TreeSet<>();
    boolean anyChange = countingChanges(changes, uncounted);
    List<ServiceChains> written = new ArrayList<>();
    List<ServiceChains> replacedShared = new ArrayList<>();
    Set<String> removedChains = new TreeSet<>();
    for (var entry : new TreeMap<>(changes).entrySet()) {
      ServicePortName name = entry.getKey();
      ServiceChains before = rendered.get(name);
      ServiceChains after = entry.getValue() == null ? null : renderPort(entry.getValue());
      if (Objects.equals(before, after)) {
        continue;
      }
      anyChange = true;
      if (before != null) {
        removedChains.addAll(before.ownChains().keySet());
        replacedShared.add(before);
      }
      if (after == null) {
        rendered.remove(name);
        inputs.remove(name);
      } else {
        removedChains.removeAll(after.ownChains().keySet());
        rendered.put(name, after);
        inputs.put(name, entry.getValue());
        written.add(after);
      }
    }
    if (!anyChange) {
      return Optional.of("");
    }
    // A chain another changed port now owns is rewritten, not deleted.
    written.forEach(w -> removedChains.removeAll(w.ownChains().keySet()));
    // Deleted after the endpoint chains that jumped to them are rewritten or deleted.
    removedChains.addAll(uncounted);
    Map<String, Set<String>> stale = new TreeMap<>();
    if (!removedChains.isEmpty()) {
      stale.put("nat", removedChains);
    }
    return Optional.of(
        (large ? writeEdits(replacedShared, written, removedChains) : write(written, stale, false))
            .text());
  }

  /** Newly counted ports' counter chains are to be created; uncounted ports' are to be deleted. */
  private boolean countingChanges(
      Map<ServicePortName, ServicePortRules> changes, Set<String> uncounted) {
    boolean changed = false;
    for (var entry : new TreeMap<>(changes).entrySet()) {
      String stem = IptablesChains.serviceCounterStem(entry.getKey());
      boolean was = entry.getKey().equals(counted.get(stem));
      boolean now = entry.getValue() != null && counts(entry.getValue());
      if (was && !now) {
        counted.remove(stem);
        uncounted.addAll(IptablesCounters.serviceChains(stem));
        changed = true;
      } else if (!was && now) {
        counted.put(stem, entry.getKey());
        countersToCreate
            .computeIfAbsent("nat", t -> new LinkedHashSet<>())
            .addAll(IptablesCounters.serviceChains(stem));
        changed = true;
      }
    }
    return changed;
  }

  private boolean counts(ServicePortRules rules) {
    return config.countsLocality() && rules.port().observeLocality();
  }

  /** The node counters and, in nat, every counted port's; none with observe-locality off. */
  private List<String> counterChains(String table) {
    if (!config.countsLocality()) {
      return List.of();
    }
    List<String> chains = new ArrayList<>(IptablesCounters.chains(table));
    if (table.equals("nat")) {
      counted.keySet().forEach(stem -> chains.addAll(IptablesCounters.serviceChains(stem)));
    }
    return chains;
  }

  public Map<String, ServicePortName> countedPorts() {
    return Map.copyOf(counted);
  }

  /**
   * For large rulesets: the changed Services' old top-level rules are deleted, the new inserted at
   * the top (Services match different packets; the NodePort jump stays last). A rule not where
   * Proxima left it fails the restore, which makes the next sync full.
   */
  private IptablesTransaction writeEdits(
      List<ServiceChains> before, List<ServiceChains> after, Set<String> removedChains) {
    IptablesTransaction out = new IptablesTransaction();
    lastWritten.clear();
    for (String table : List.of("filter", "nat")) {
      List<IptablesRule> oldRules = new ArrayList<>();
      before.forEach(service -> oldRules.addAll(sharedRules(service, table)));
      List<IptablesRule> newRules = new ArrayList<>();
      after.forEach(service -> newRules.addAll(sharedRules(service, table)));
      Set<String> counters = countersToCreate.getOrDefault(table, Set.of());
      // Counted from the change, not the whole ruleset, so that an edit costs what changed.
      int delta = newRules.size() - oldRules.size() + counters.size();
      if (table.equals("nat")) {
        delta += ownRules(after) - ownRules(before);
        delta -=
            (int)
                removedChains.stream()
                    .filter(c -> c.startsWith(IptablesChains.SERVICE_COUNT_PREFIX))
                    .count();
      }
      ruleCounts.merge(table, delta, Integer::sum);
      List<IptablesRule> unchanged = new ArrayList<>(oldRules);
      unchanged.retainAll(newRules);
      oldRules.removeAll(unchanged);
      newRules.removeAll(unchanged);
      Map<String, List<IptablesRule>> own = new LinkedHashMap<>();
      if (table.equals("nat")) {
        after.forEach(service -> own.putAll(service.ownChains()));
      }
      Set<String> deleted = table.equals("nat") ? removedChains : Set.of();
      if (oldRules.isEmpty()
          && newRules.isEmpty()
          && own.isEmpty()
          && deleted.isEmpty()
          && counters.isEmpty()) {
        continue;
      }
      counters.forEach(chain -> out.declare(table, chain));
      own.keySet().forEach(chain -> out.declare(table, chain));
      deleted.forEach(chain -> out.declare(table, chain));
      counters.forEach(chain -> out.append(IptablesCounters.rule(table, chain)));
      int written = counters.size();
      for (List<IptablesRule> rules : own.values()) {
        rules.forEach(out::append);
        written += rules.size();
      }
      oldRules.forEach(out::delete);
      for (int i = newRules.size() - 1; i >= 0; i--) {
        out.insert(newRules.get(i), 1);
      }
      written += newRules.size();
      deleted.forEach(chain -> out.deleteChain(table, chain));
      lastWritten.put(table, written);
    }
    return out;
  }

  private static int ownRules(Collection<ServiceChains> services) {
    return services.stream()
        .flatMap(service -> service.ownChains().values().stream())
        .mapToInt(List::size)
        .sum();
  }

  private static List<IptablesRule> sharedRules(ServiceChains service, String table) {
    List<IptablesRule> rules =
        new ArrayList<>(service.shared().stream().filter(r -> r.table().equals(table)).toList());
    if (table.equals("filter") && service.healthCheck() != null) {
      rules.add(service.healthCheck());
    }
    return rules;
  }

  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  /** Rules Proxima owns per table after the latest buffer. */
  public Map<String, Integer> ruleCounts() {
    return Map.copyOf(ruleCounts);
  }

  public Map<String, Integer> lastWritten() {
    return Map.copyOf(lastWritten);
  }

  private ServiceChains renderPort(ServicePortRules rules) {
    ServiceChains chains = ServiceChainsRenderer.render(config, rules, large);
    warnings.addAll(chains.warnings());
    return chains;
  }

  private List<String> topLevel(String table) {
    return switch (table) {
      case "filter" -> List.of(SERVICES, EXTERNAL_SERVICES, FORWARD, NODEPORTS, FIREWALL);
      case "nat" ->
          usesMasqNonPod()
              ? List.of(SERVICES, NODEPORTS, POSTROUTING, MARK_MASQ, MASQ_NON_POD)
              : List.of(SERVICES, NODEPORTS, POSTROUTING, MARK_MASQ);
      default -> List.of();
    };
  }

  private boolean usesMasqNonPod() {
    return !config.masqueradeAll()
        && config.podInterface() == null
        && config.clusterCidrs().size() > 1;
  }

  static String podInterfaceMatch(FamilySettings config) {
    var pods = config.podInterface();
    return "-i " + pods.name() + (pods.prefix() ? "+" : "");
  }

  private Set<String> wantedChains(String table) {
    Set<String> wanted = new HashSet<>(topLevel(table));
    wanted.add(CANARY);
    wanted.addAll(counterChains(table));
    if (table.equals("nat")) {
      rendered.values().forEach(r -> wanted.addAll(r.ownChains().keySet()));
    }
    return wanted;
  }

  private Map<String, List<IptablesRule>> sharedChains(
      String table, Collection<ServiceChains> services) {
    Map<String, List<IptablesRule>> chains = new LinkedHashMap<>();
    topLevel(table).forEach(chain -> chains.put(chain, new ArrayList<>()));
    String mark = config.masqueradeMark() + "/" + config.masqueradeMark();
    if (table.equals("filter")) {
      add(chains, table, FORWARD, null, "-m conntrack --ctstate INVALID -j DROP");
      add(
          chains,
          table,
          FORWARD,
          "proxima forwarding rules",
          "-m mark --mark " + mark + " -j ACCEPT");
      add(
          chains,
          table,
          FORWARD,
          "proxima forwarding conntrack rule",
          "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT");
    } else {
      add(chains, table, POSTROUTING, null, "-m mark ! --mark " + mark + " -j RETURN");
      add(chains, table, POSTROUTING, null, "-j MARK --xor-mark " + config.masqueradeMark());
      add(
          chains,
          table,
          POSTROUTING,
          "proxima service traffic requiring SNAT",
          "-j MASQUERADE --random-fully");
      add(chains, table, MARK_MASQ, null, "-j MARK --or-mark " + config.masqueradeMark());
      if (usesMasqNonPod()) {
        for (String cidr : config.clusterCidrs()) {
          add(chains, table, MASQ_NON_POD, null, "-s " + cidr + " -j RETURN");
        }
        add(chains, table, MASQ_NON_POD, null, "-j " + MARK_MASQ);
      }
    }
    Set<Integer> healthPorts = new HashSet<>();
    for (ServiceChains service : services) {
      for (IptablesRule rule : service.shared()) {
        if (rule.table().equals(table)) {
          chains.get(rule.chain()).add(rule);
        }
      }
      int health = service.healthCheckNodePort();
      if (table.equals("filter") && health > 0 && healthPorts.add(health)) {
        chains.get(NODEPORTS).add(service.healthCheck());
      }
    }
    if (table.equals("nat")) {
      String comment = "proxima service nodeports; NOTE: this must be the last rule in this chain";
      // Listed but empty: no jump at all, so NodePorts are accepted nowhere (fail closed).
      if (!config.nodePortsListed()) {
        String local = "-m addrtype --dst-type LOCAL ! -d " + config.family().loopback();
        add(chains, table, SERVICES, comment, local + " -j " + NODEPORTS);
      } else {
        for (String address : config.nodePortAddresses()) {
          add(chains, table, SERVICES, comment, "-d " + address + " -j " + NODEPORTS);
        }
      }
    }
    return chains;
  }

  private static void add(
      Map<String, List<IptablesRule>> chains,
      String table,
      String chain,
      String comment,
      String spec) {
    chains.get(chain).add(new IptablesRule(table, chain, comment, spec));
  }

  private IptablesTransaction write(
      Collection<ServiceChains> written, Map<String, Set<String>> stale, boolean full) {
    IptablesTransaction out = new IptablesTransaction();
    ruleCounts.clear();
    lastWritten.clear();
    if (full) {
      out.declare("mangle", CANARY);
      Set<String> mangleStale = stale.getOrDefault("mangle", Set.of());
      mangleStale.forEach(chain -> out.declare("mangle", chain));
      mangleStale.forEach(chain -> out.deleteChain("mangle", chain));
    }
    for (String table : List.of("filter", "nat")) {
      Map<String, List<IptablesRule>> shared = sharedChains(table, rendered.values());
      Set<String> declared = new LinkedHashSet<>(shared.keySet());
      if (full) {
        declared.add(CANARY);
      }
      Map<String, List<IptablesRule>> own = new LinkedHashMap<>();
      if (table.equals("nat")) {
        written.forEach(w -> own.putAll(w.ownChains()));
        declared.addAll(own.keySet());
      }
      Set<String> deleted = stale.getOrDefault(table, Set.of());
      declared.addAll(deleted);
      // Only the counter chains the kernel lacks are declared: declaring flushes.
      Set<String> counters = countersToCreate.getOrDefault(table, Set.of());
      declared.addAll(counters);
      declared.forEach(chain -> out.declare(table, chain));
      counters.forEach(chain -> out.append(IptablesCounters.rule(table, chain)));
      int writtenRules = counters.size();
      for (List<IptablesRule> rules : shared.values()) {
        rules.forEach(out::append);
        writtenRules += rules.size();
      }
      for (List<IptablesRule> rules : own.values()) {
        rules.forEach(out::append);
        writtenRules += rules.size();
      }
      deleted.forEach(chain -> out.deleteChain(table, chain));
      ruleCounts.put(table, ownedRules(table, shared));
      lastWritten.put(table, writtenRules);
    }
    return out;
  }

  private int ownedRules(String table, Map<String, List<IptablesRule>> shared) {
    int owned = shared.values().stream().mapToInt(List::size).sum() + counterChains(table).size();
    return table.equals("nat") ? owned + ownRules(rendered.values()) : owned;
  }
}
