package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.nftables.NftNames.*;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftSet;
import dev.proxima.proxy.nftables.NftSyntax;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.NameHash;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.route.PortRoute;
import dev.proxima.proxy.route.RouteDecision;
import dev.proxima.proxy.route.Verdict;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * One Service port's routing decision as what it adds to the fixed table: elements, and the chains
 * and sets it needs. Also predicts the shared chains a cold rebuild's first transaction needs.
 */
final class RenderPass extends TableObjects {
  private static final String REJECT_VERDICT = "goto " + REJECT_CHAIN;
  private static final String DROP_VERDICT = "goto " + NftNames.NO_ENDPOINT_DROP;

  /** The table objects of a way in: an address tuple, or a NodePort. */
  private record Entry(
      String services,
      String noEndpoints,
      String externalClusterChain,
      String externalLocalChain,
      String clusterDispatch,
      String localDispatch,
      String clusterLbPrefix,
      String localLbPrefix) {
    static final Entry ADDRESS =
        new Entry(
            SERVICE_IPS,
            NO_ENDPOINT_SERVICES,
            EXTERNAL_CLUSTER,
            EXTERNAL_LOCAL,
            CLUSTER_DISPATCH,
            LOCAL_DISPATCH,
            LB_PREFIX,
            LOCAL_LB_PREFIX);
    static final Entry NODEPORT =
        new Entry(
            SERVICE_NODEPORTS,
            NO_ENDPOINT_NODEPORTS,
            NODEPORT_EXTERNAL_CLUSTER,
            NODEPORT_EXTERNAL_LOCAL,
            NODEPORT_CLUSTER_DISPATCH,
            NODEPORT_LOCAL_DISPATCH,
            NODEPORT_LB_PREFIX,
            NODEPORT_LOCAL_LB_PREFIX);

    String lbPrefix(Verdict list) {
      return list == Verdict.CLUSTER_ENDPOINTS ? clusterLbPrefix : localLbPrefix;
    }
  }

  private final FamilySettings config;
  private final IpFamily family;
  final List<String> warnings = new ArrayList<>();
  private final RouteDecision decision;
  private final Map<String, TreeSet<Integer>> lbSizes = newLbSizes();
  private final Set<String> clusterIps = new LinkedHashSet<>();
  private final Set<String> hairpins = new LinkedHashSet<>();
  private final Map<Locality, Set<String>> localityEndpoints =
      new java.util.EnumMap<>(Locality.class);

  private int waysIn;
  boolean counted;

  /** An address that is both the port's ClusterIP and an externalIP is written once. */
  private final Set<String> written = new HashSet<>();

  private final List<String> masquerade;
  private final AffinityChains affinity;
  private final UnaryOperator<String> nameHash;

  RenderPass(FamilySettings config, UnaryOperator<String> nameHash) {
    this.config = config;
    this.nameHash = nameHash;
    this.family = config.family();
    this.decision = new RouteDecision(family, warnings);
    this.masquerade = FixedLayout.masqueradeClusterIp(config).stream().toList();
    this.affinity = new AffinityChains(family, masquerade, nameHash);
  }

  /** What one port adds to the fixed table; cheap, as it runs per changed port. */
  RenderPass fragment(ServicePortRules rules) {
    rules.route(decision).ifPresent(this::translate);
    allLbChains();
    affinity.chains().forEach(this::chain);
    affinity.sets().forEach((name, body) -> sets.put(name, NftSet.set(name, body, null)));
    keys(elements, CLUSTER_IPS, clusterIps);
    keys(elements, HAIRPINS, hairpins);
    localityEndpoints.forEach(
        (locality, addresses) -> keys(elements, NftNames.localitySet(locality), addresses));
    return this;
  }

  List<String> countingKeys() {
    var counting = elements.getOrDefault(NftNames.serviceSet(Locality.NODE), List.of());
    return counting.stream().map(NftElement::key).toList();
  }

  /**
   * The shared {@code lb-N} chains the render adds, in its order, from the routing decisions alone,
   * for a cold rebuild's first transaction; mirrors {@link #translate}, as a table test checks.
   */
  static SharedChains sharedChainsOf(FamilySettings config, Iterable<ServicePortRules> ports) {
    var decision = new RouteDecision(config.family(), new ArrayList<>());
    var names = new LinkedHashSet<String>();
    var sizes = newLbSizes();
    var ofPort = newLbSizes();
    // Elements the table is sure to have, whatever the ports' claims on map keys.
    var clusterIpsSeen = new HashSet<String>();
    var endpointsSeen = new HashSet<String>();
    for (var rules : ports) {
      var route = rules.route(decision).orElse(null);
      if (route == null) {
        continue;
      }
      if (route.clusterIp() != null) {
        clusterIpsSeen.add(route.clusterIp());
      }
      route.cluster().forEach(target -> endpointsSeen.add(target.ip()));
      route.spill().spread().forEach(target -> endpointsSeen.add(target.ip()));
      route.local().forEach(target -> endpointsSeen.add(target.ip()));
      if (route.port().stickyTimeout() != null) {
        continue; // Every dispatch goes through the port's own affinity chains.
      }
      ofPort.values().forEach(TreeSet::clear);
      int ways = waysIn(route);
      if (route.clusterIp() != null) {
        sharedChainOf(route.internal(), route, Entry.ADDRESS, ofPort, ways);
      }
      var externalAddresses = new HashSet<>(route.externalIps());
      externalAddresses.addAll(route.loadBalancerIps());
      externalAddresses.remove(route.clusterIp());
      if (!externalAddresses.isEmpty()) {
        externalSharedChains(route, Entry.ADDRESS, ofPort, ways);
      }
      if (route.nodePort() != 0) {
        externalSharedChains(route, Entry.NODEPORT, ofPort, ways);
      }
      ofPort.forEach(
          (prefix, used) -> {
            for (int size : used) {
              names.add(prefix + size);
              sizes.get(prefix).add(size);
            }
          });
    }
    return new SharedChains(
        List.copyOf(names), sizes, clusterIpsSeen.size() + endpointsSeen.size());
  }

  private static void externalSharedChains(
      PortRoute route, Entry entry, Map<String, TreeSet<Integer>> out, int ways) {
    if (route.anyEndpoints()) {
      if (!route.cluster().isEmpty()) {
        sharedChainOf(Verdict.CLUSTER_ENDPOINTS, route, entry, out, ways);
      }
      if (route.external() == Verdict.LOCAL_ENDPOINTS) {
        sharedChainOf(Verdict.LOCAL_ENDPOINTS, route, entry, out, ways);
      }
    }
  }

  private static void sharedChainOf(
      Verdict verdict, PortRoute route, Entry entry, Map<String, TreeSet<Integer>> out, int ways) {
    if (!verdict.dispatches() || (verdict == Verdict.CLUSTER_ENDPOINTS && route.spills())) {
      return; // a spilling Cluster list has a chain of its own
    }
    int size = listOf(verdict, route).size();
    if (!ownChain(ways, size)) {
      out.get(entry.lbPrefix(verdict)).add(size);
    }
  }

  private static List<Endpoint> listOf(Verdict list, PortRoute route) {
    return list == Verdict.CLUSTER_ENDPOINTS ? route.cluster() : route.local();
  }

  /** {@code elementsAtLeast}: enough to know before rendering that a table needs several. */
  record SharedChains(
      List<String> names, Map<String, TreeSet<Integer>> sizes, int elementsAtLeast) {}

  static RenderPass sharedChainObjects(FamilySettings config, SharedChains shared) {
    var pass = new RenderPass(config, NameHash::of);
    shared.sizes().forEach((prefix, sizes) -> pass.lbSizes.get(prefix).addAll(sizes));
    pass.allLbChains();
    return pass;
  }

  private static Map<String, TreeSet<Integer>> newLbSizes() {
    var sizes = new LinkedHashMap<String, TreeSet<Integer>>();
    for (String prefix : LB_PREFIXES) {
      sizes.put(prefix, new TreeSet<>());
    }
    return sizes;
  }

  private void allLbChains() {
    String daddrTuple = NftSyntax.daddr(family) + " . meta l4proto . th dport";
    String portTuple = "meta l4proto . th dport";
    lbChains(LB_PREFIX, masquerade, daddrTuple);
    lbChains(LOCAL_LB_PREFIX, masquerade, daddrTuple);
    lbChains(NODEPORT_LB_PREFIX, List.of(), portTuple);
    lbChains(NODEPORT_LOCAL_LB_PREFIX, List.of(), portTuple);
  }

  private void translate(PortRoute route) {
    waysIn = waysIn(route);
    ServicePort sp = route.port();
    String proto = sp.protocol().lower();
    String comment = NftText.comment(sp.name().toString());
    for (List<Endpoint> list : List.of(route.cluster(), route.local(), route.spill().spread())) {
      for (Endpoint target : list) {
        hairpins.add(target.ip() + " . " + target.ip());
        if (config.countsLocality()) {
          localityEndpoints
              .computeIfAbsent(target.locality(), l -> new LinkedHashSet<>())
              .add(target.ip());
        }
      }
    }
    List<String> held = new ArrayList<>();
    if (route.clusterIp() != null) {
      clusterIps.add(route.clusterIp());
      String tuple = tuple(route.clusterIp(), proto, sp.port());
      if (written.add(tuple)) {
        held.add(route.clusterIp());
        Verdict internal = route.internal();
        element(
            internal.dispatches() ? SERVICE_IPS : NO_ENDPOINT_SERVICES,
            tuple,
            comment,
            verdict(internal, route, Entry.ADDRESS, tuple));
      }
    }

    // An address that is both an externalIP and a load-balancer IP gets the latter's firewall.
    Map<String, Boolean> externalAddresses = new LinkedHashMap<>();
    for (String address : route.externalIps()) {
      externalAddresses.merge(address, false, Boolean::logicalOr);
    }
    for (String address : route.loadBalancerIps()) {
      externalAddresses.merge(address, route.firewall(), Boolean::logicalOr);
    }
    for (Map.Entry<String, Boolean> entry : externalAddresses.entrySet()) {
      String tuple = tuple(entry.getKey(), proto, sp.port());
      if (!written.add(tuple)) {
        continue;
      }
      held.add(entry.getKey());
      external(Entry.ADDRESS, tuple, route, comment);
      if (entry.getValue()) {
        element(FIREWALL_IPS, tuple, comment, "goto " + firewallChain(route.allowedSources()));
      }
    }

    if (route.nodePort() != 0) {
      String key = proto + " . " + route.nodePort();
      if (written.add(key)) {
        external(Entry.NODEPORT, key, route, comment);
      }
    }
    observe(sp, held);
  }

  /**
   * A counted port's addresses as dialled go in all four counting sets, untouched by endpoint
   * churn. Not its NodePort: every node address would be a key of each.
   */
  private void observe(ServicePort sp, List<String> addresses) {
    if (!config.countsLocality() || !sp.observeLocality()) {
      return;
    }
    counted = true;
    String proto = sp.protocol().lower();
    for (String address : addresses) {
      String key = tuple(address, proto, sp.port());
      for (Locality locality : Locality.values()) {
        element(NftNames.serviceSet(locality), key, null, null);
      }
    }
  }

  /**
   * With eTP=Local and endpoints elsewhere only, as upstream: pods and the host short-circuit to
   * the Cluster list, external clients find no {@code local-dispatch} element and are dropped.
   */
  private void external(Entry entry, String key, PortRoute route, String comment) {
    if (route.anyEndpoints()) {
      element(
          entry.services(),
          key,
          comment,
          "goto "
              + (route.externalLocal()
                  ? entry.externalLocalChain()
                  : entry.externalClusterChain()));
      if (!route.cluster().isEmpty()) {
        element(
            entry.clusterDispatch(),
            key,
            null,
            dispatch(Verdict.CLUSTER_ENDPOINTS, route, entry, key));
      }
      if (route.external() == Verdict.LOCAL_ENDPOINTS) {
        element(
            entry.localDispatch(), key, null, dispatch(Verdict.LOCAL_ENDPOINTS, route, entry, key));
      }
    }
    if (!route.external().dispatches()) {
      element(entry.noEndpoints(), key, comment, verdict(route.external(), route, entry, key));
    }
  }

  private String verdict(Verdict verdict, PortRoute route, Entry entry, String key) {
    return switch (verdict) {
      case CLUSTER_ENDPOINTS, LOCAL_ENDPOINTS -> dispatch(verdict, route, entry, key);
      case DROP -> DROP_VERDICT;
      case REJECT -> REJECT_VERDICT;
    };
  }

  private String dispatch(Verdict verdict, PortRoute route, Entry entry, String key) {
    ServicePort sp = route.port();
    List<Endpoint> list = listOf(verdict, route);
    String kind = verdict == Verdict.CLUSTER_ENDPOINTS ? "CLUSTER" : "LOCAL";
    var spill = verdict == Verdict.CLUSTER_ENDPOINTS ? route.spill() : ZoneSpill.NONE;
    if (sp.stickyTimeout() != null) {
      return "goto " + affinity.chain(sp, kind.toLowerCase(Locale.ROOT), list, spill);
    }
    if (spill.spills()) {
      // One weighted draw keeps the zone's share on the hinted endpoints, the rest go to any.
      return "goto "
          + endpointsChain(
              sp,
              "SPILL",
              draw(spill) + " " + dnat(family, sp.protocol(), list),
              dnat(family, sp.protocol(), spill.spread()));
    }
    if (ownChain(waysIn, list.size())) {
      return "goto " + endpointsChain(sp, kind, dnat(family, sp.protocol(), list));
    }
    String prefix = entry.lbPrefix(verdict);
    String map = prefix + list.size();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      element(map, key + " . " + i, null, target.ip() + " . " + target.port());
    }
    lbSizes.get(prefix).add(list.size());
    return "goto " + prefix + list.size();
  }

  /**
   * Shared maps copy the list per way in; a chain costs a few dozen elements, so the common case (a
   * ClusterIP, perhaps a NodePort) adds no chain per Service.
   */
  static boolean ownChain(int waysIn, int listSize) {
    return (long) (waysIn - 1) * listSize > SHARED_COPIES_LIMIT;
  }

  static final int SHARED_COPIES_LIMIT = 64;

  static int waysIn(PortRoute route) {
    var addresses = new HashSet<String>();
    if (route.clusterIp() != null) {
      addresses.add(route.clusterIp());
    }
    addresses.addAll(route.externalIps());
    addresses.addAll(route.loadBalancerIps());
    return addresses.size() + (route.nodePort() != 0 ? 1 : 0);
  }

  /** The port's own chain of {@code kind}: the list once, whatever the ways in. */
  private String endpointsChain(ServicePort sp, String kind, String... dnats) {
    String name =
        NftNames.ENDPOINTS_CHAIN_PREFIX
            + nameHash
                .apply(sp.name() + "/" + sp.protocol().lower() + "#" + kind)
                .substring(0, 13)
                .toLowerCase(Locale.ROOT);
    if (!chains.containsKey(name)) {
      var chainRules = new ArrayList<>(masquerade);
      chainRules.addAll(List.of(dnats));
      chain(name, chainRules);
    }
    return name;
  }

  /**
   * The chain of one source-range list, dropping every source outside its set (with no range
   * readable, every source). Named by the sorted list's hash, so ports with that list share it. A
   * plain interval set loads in n log n, ranges concatenated with each address slower.
   */
  private String firewallChain(List<Cidr> sourceRanges) {
    var ranges = new TreeSet<String>();
    sourceRanges.forEach(range -> ranges.add(range.toString()));
    String name =
        FIREWALL_PREFIX
            + nameHash
                .apply("firewall:" + String.join(",", ranges))
                .substring(0, FIREWALL_HASH_LENGTH)
                .toLowerCase(Locale.ROOT);
    if (chains.containsKey(name)) {
      return name; // the port's other address
    }
    var allowed =
        NftSet.set(
            name,
            "type " + NftSyntax.addressType(family) + " ; flags interval ;",
            "sources loadBalancerSourceRanges allow");
    chainWithMap(name, allowed, List.of(NftSyntax.saddr(family) + " != @" + name + " drop"));
    ranges.forEach(range -> element(name, range, null, null));
    return name;
  }

  /** 80 bits: two lists a tenant crafted to meet would cost it about 2^40 hashes. */
  static final int FIREWALL_HASH_LENGTH = 16;

  /**
   * Each {@code lb-N} chain has its own map, keyed by way in and endpoint index: nft 1.0.6 types a
   * rule looking up a {@code typeof} map only where the map is declared, so they load together.
   */
  private void lbChains(String prefix, List<String> before, String match) {
    String endpoint = NftSyntax.daddr(family) + " . th dport";
    for (int size : lbSizes.get(prefix)) {
      String name = prefix + size;
      var map =
          NftSet.map(
              name,
              "typeof " + match + " . numgen random mod 1 : " + endpoint + " ;",
              "endpoint i of ports with " + size + " endpoints");
      chainWithMap(name, map, before);
      String dnat = "dnat %s to %s . numgen random mod %s map @%s";
      String rule = dnat.formatted(NftSyntax.family(family), match, size, name);
      rules.get(name).add(new NftRule(name, rule, null, true));
    }
  }

  private String tuple(String address, String proto, int port) {
    return address + " . " + proto + " . " + port;
  }

  /** Matches {@code keepPerMille} of every thousand new connections, drawn afresh for each. */
  static String draw(ZoneSpill spill) {
    return "numgen random mod " + ZoneSpill.WHOLE + " < " + spill.keepPerMille();
  }

  /** DNAT to one of {@code list} at random, the list written once in an anonymous map. */
  static String dnat(IpFamily family, Protocol protocol, List<Endpoint> list) {
    var choices = new StringBuilder();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      choices.append(i == 0 ? "" : ", ").append(i).append(" : ");
      choices.append(target.ip()).append(" . ").append(target.port());
    }
    return "meta l4proto %s dnat %s to numgen random mod %s map { %s }"
        .formatted(protocol.lower(), NftSyntax.family(family), list.size(), choices);
  }
}
