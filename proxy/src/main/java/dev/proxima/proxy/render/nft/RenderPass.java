package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.render.nft.NftNames.*;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
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
 * Translates one Service port's routing decision ({@link dev.proxima.proxy.route}) into what it
 * adds to the fixed table ({@link FixedLayout}): map and set elements, and the chains and sets it
 * needs ({@code lb-N}, affinity chains), as objects ({@link ServiceFragment}). {@link
 * RulesetAssembler} puts the fixed table and the fragments together, claims keys and writes the
 * text; it is the only way to a whole table, so what the live proxy loads and what {@code render}
 * prints cannot drift apart.
 */
final class RenderPass extends TableObjects {
  private static final String REJECT_VERDICT = "goto " + REJECT_CHAIN;
  private static final String DROP_VERDICT = "goto " + NftNames.NO_ENDPOINT_DROP;

  /** Which endpoint list a dispatch uses. */
  private enum ListKind {
    CLUSTER,
    LOCAL
  }

  /**
   * How the packet arrived: at an address tuple (ClusterIP, externalIP, LB IP), keyed by {@code
   * addr . proto . port}, or at a NodePort, keyed by {@code proto . port}; and the table objects
   * that way in uses, so both are rendered by one piece of code.
   */
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
  }

  private final FamilySettings config;
  private final IpFamily family;
  private final List<String> warnings = new ArrayList<>();
  private final RouteDecision decision;

  /** Endpoint counts in use per on-demand chain prefix. */
  private final Map<String, TreeSet<Integer>> lbSizes = new LinkedHashMap<>();

  private final Set<String> clusterIps = new LinkedHashSet<>();
  private final Set<String> hairpins = new LinkedHashSet<>();

  /** Endpoint addresses per locality, for the kernel's connection counters. */
  private final Map<Locality, Set<String>> localityEndpoints =
      new java.util.EnumMap<>(Locality.class);

  /** The ways in of the port being translated ({@link #waysIn(PortRoute)}). */
  private int waysIn;

  /** Whether the port rendered is counted per locality. */
  private boolean counted;

  /**
   * The address tuples and NodePorts this port has written: an address that is both its ClusterIP
   * and an externalIP is written once. Which port owns a key two ports want is decided before
   * ({@link dev.proxima.proxy.plan.AddressOwners}) and enforced by the assembler ({@link
   * KeyOwners}), not here.
   */
  private final Set<String> written = new HashSet<>();

  /** The ClientIP-affinity chains and timeout sets, created after the lb chains. */
  private final AffinityChains affinity;

  /** Hashes the names of a port's own chains ({@link NameHash} but in a test). */
  private final UnaryOperator<String> nameHash;

  RenderPass(FamilySettings config) {
    this(config, NameHash::of);
  }

  RenderPass(FamilySettings config, UnaryOperator<String> nameHash) {
    this.config = config;
    this.nameHash = nameHash;
    this.family = config.family();
    this.decision = new RouteDecision(family, warnings);
    this.affinity =
        new AffinityChains(
            family, TrafficMatches.masqueradeClusterIp(config).stream().toList(), nameHash);
    for (String prefix :
        List.of(LB_PREFIX, LOCAL_LB_PREFIX, NODEPORT_LB_PREFIX, NODEPORT_LOCAL_LB_PREFIX)) {
      lbSizes.put(prefix, new TreeSet<>());
    }
  }

  /**
   * What one Service port adds to the fixed table, as objects, without building the fixed table:
   * the assembler calls this once per changed port, so it must stay cheap.
   */
  ServiceFragment fragment(ServicePortRules rules) {
    servicePort(rules);
    allLbChains();
    affinity.chains().forEach(this::chain);
    var fragmentSets = new LinkedHashMap<String, NftSet>();
    affinity.sets().forEach((name, body) -> fragmentSets.put(name, NftSet.set(name, body, null)));
    var fragmentElements = new LinkedHashMap<String, List<NftElement>>(elements);
    keys(fragmentElements, CLUSTER_IPS, clusterIps);
    keys(fragmentElements, HAIRPINS, hairpins);
    localityEndpoints.forEach(
        (locality, addresses) -> keys(fragmentElements, NftNames.localitySet(locality), addresses));
    return new ServiceFragment(
        chains, this.rules, fragmentSets, fragmentElements, counted, List.copyOf(warnings));
  }

  /**
   * The shared chains that look up a map ({@code lb-N} and its kin, see {@link NftNames}) that
   * rendering {@code ports} adds, in the order a render of them in this order first adds them,
   * found without rendering: the routing decision alone says which endpoint lists a port dispatches
   * to and how long they are. A cold rebuild loads these chains in its first transaction, before it
   * renders any port ({@link RulesetAssembler#replaceAllInBatches}). This follows {@link
   * #translate}, {@link #external} and {@link #dispatch}; a table test holds them together, and the
   * assembler checks each port's fragment against it.
   */
  static SharedChains sharedChainsOf(FamilySettings config, Iterable<ServicePortRules> ports) {
    var decision = new RouteDecision(config.family(), new ArrayList<>());
    var names = new LinkedHashSet<String>();
    var sizes = new LinkedHashMap<String, TreeSet<Integer>>();
    var ofPort = new LinkedHashMap<String, TreeSet<Integer>>();
    for (String prefix :
        List.of(LB_PREFIX, LOCAL_LB_PREFIX, NODEPORT_LB_PREFIX, NODEPORT_LOCAL_LB_PREFIX)) {
      sizes.put(prefix, new TreeSet<>());
      ofPort.put(prefix, new TreeSet<>());
    }
    // Elements the table is sure to have, whatever the ports' claims on map keys: the distinct
    // ClusterIPs (set cluster-ips) and endpoint addresses (set hairpins) of the ports routed.
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
      route.local().forEach(target -> endpointsSeen.add(target.ip()));
      if (route.port().stickyTimeout() != null) {
        continue; // Every dispatch goes through the port's own affinity chains.
      }
      ofPort.values().forEach(TreeSet::clear);
      int ways = waysIn(route);
      if (route.clusterIp() != null) {
        sharedChainOf(route.internal(), route, Entry.ADDRESS, ofPort, ways);
      }
      boolean external = false;
      for (String address : route.externalIps()) {
        external |= !address.equals(route.clusterIp());
      }
      for (String address : route.loadBalancerIps()) {
        external |= !address.equals(route.clusterIp());
      }
      if (external) {
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

  /** The shared chains an external way in adds, as {@link #external} dispatches. */
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
    if (!route.external().dispatches()) {
      sharedChainOf(route.external(), route, entry, out, ways);
    }
  }

  /** The shared chain a verdict's dispatch adds, as {@link #verdict} and {@link #dispatch} do. */
  private static void sharedChainOf(
      Verdict verdict, PortRoute route, Entry entry, Map<String, TreeSet<Integer>> out, int ways) {
    List<Endpoint> list =
        switch (verdict) {
          case CLUSTER_ENDPOINTS -> route.cluster();
          case LOCAL_ENDPOINTS -> route.local();
          case DROP, REJECT -> null;
        };
    if (list == null || ownChain(ways, list.size())) {
      return;
    }
    String prefix =
        verdict == Verdict.CLUSTER_ENDPOINTS ? entry.clusterLbPrefix() : entry.localLbPrefix();
    out.get(prefix).add(list.size());
  }

  /**
   * The shared chains that look up a map, in the order a render of the ports first adds them, and
   * the endpoint counts in use per chain prefix.
   *
   * @param elementsAtLeast elements the render is sure to add (it may add more): enough to know,
   *     before rendering, that a table needs more than one transaction
   */
  record SharedChains(
      List<String> names, Map<String, TreeSet<Integer>> sizes, int elementsAtLeast) {}

  /** The chains {@code shared} names, each with its rules, as a render writes them. */
  static ServiceFragment sharedChainObjects(FamilySettings config, SharedChains shared) {
    var pass = new RenderPass(config);
    shared.sizes().forEach((prefix, sizes) -> pass.lbSizes.get(prefix).addAll(sizes));
    pass.allLbChains();
    return new ServiceFragment(pass.chains, pass.rules, Map.of(), Map.of(), false, List.of());
  }

  /** The {@code lb-N} chains of every prefix, for the endpoint counts dispatched to so far. */
  private void allLbChains() {
    String daddrTuple = NftSyntax.daddr(family) + " . meta l4proto . th dport";
    String portTuple = "meta l4proto . th dport";
    List<String> masquerade = TrafficMatches.masqueradeClusterIp(config).stream().toList();
    lbChains(LB_PREFIX, masquerade, daddrTuple);
    lbChains(LOCAL_LB_PREFIX, masquerade, daddrTuple);
    lbChains(NODEPORT_LB_PREFIX, List.of(), portTuple);
    lbChains(NODEPORT_LOCAL_LB_PREFIX, List.of(), portTuple);
  }

  // ---------------------------------------------------------------- per service port

  private void servicePort(ServicePortRules rules) {
    rules.route(decision).ifPresent(this::translate);
  }

  /** Spells one port's routing decision in this mode. */
  private void translate(PortRoute route) {
    waysIn = waysIn(route);
    ServicePort sp = route.port();
    ServicePortName spn = sp.name();
    String proto = sp.protocol().lower();
    String comment = NftText.comment(spn.toString());
    List<Endpoint> cluster = route.cluster();
    List<Endpoint> local = route.local();
    for (Endpoint target : cluster) {
      hairpins.add(target.ip() + " . " + target.ip());
    }
    for (Endpoint target : local) {
      hairpins.add(target.ip() + " . " + target.ip());
    }
    for (Endpoint target : cluster) {
      countLocality(target);
    }
    for (Endpoint target : local) {
      countLocality(target);
    }

    // The Service addresses this port holds, for its per-Service locality counters.
    List<String> held = new ArrayList<>();

    // ClusterIP: internal traffic.
    if (route.clusterIp() != null) {
      clusterIps.add(route.clusterIp());
      String tuple = tuple(route.clusterIp(), proto, sp.port());
      if (firstUse(tuple)) {
        held.add(route.clusterIp());
        Verdict internal = route.internal();
        element(
            internal.dispatches() ? SERVICE_IPS : NO_ENDPOINT_SERVICES,
            tuple,
            comment,
            verdict(internal, sp, cluster, local, Entry.ADDRESS, tuple));
      }
    }

    // externalIPs and load-balancer IPs: external traffic. Each address once; an address that is
    // both an externalIP and a load-balancer IP still gets the load-balancer's firewall.
    Map<String, Boolean> externalAddresses = new LinkedHashMap<>();
    for (String address : route.externalIps()) {
      externalAddresses.merge(address, false, Boolean::logicalOr);
    }
    for (String address : route.loadBalancerIps()) {
      externalAddresses.merge(address, route.firewall(), Boolean::logicalOr);
    }
    for (Map.Entry<String, Boolean> entry : externalAddresses.entrySet()) {
      String tuple = tuple(entry.getKey(), proto, sp.port());
      if (!firstUse(tuple)) {
        continue;
      }
      held.add(entry.getKey());
      external(Entry.ADDRESS, tuple, route, comment, cluster, local);
      if (entry.getValue()) {
        firewall(tuple, comment, route.allowedSources());
      }
    }

    // NodePort: external traffic to this node's addresses.
    if (route.nodePort() != 0) {
      String key = proto + " . " + route.nodePort();
      if (firstUse(key)) {
        external(Entry.NODEPORT, key, route, comment, cluster, local);
      }
    }
    observe(sp, held);
  }

  /**
   * A counted port's keys in the per-locality counting sets ({@link NftNames#serviceSet}): one per
   * Service address it holds, the same in all four sets, so each locality's count exists from the
   * start, and their number grows with the port's addresses alone. The key is the connection's
   * original destination as the client dialled it ({@code ct original daddr . l4proto . ct original
   * proto-dst}); which set a connection is counted in follows the endpoint's address, so endpoints
   * coming and going leave these elements alone. NodePort connections are not counted per Service:
   * their original destination is a node address, which would put every node address in every
   * counted NodePort's elements.
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
   * External traffic arriving at {@code key} (an externalIP or load-balancer tuple, or a NodePort):
   * the jump into the chain for its externalTrafficPolicy and the dispatch elements behind it, or,
   * when that policy leaves no endpoint, the no-endpoint verdict.
   */
  private void external(
      Entry entry,
      String key,
      PortRoute route,
      String comment,
      List<Endpoint> cluster,
      List<Endpoint> local) {
    ServicePort sp = route.port();
    boolean externalLocal = route.externalLocal();
    if (route.anyEndpoints()) {
      element(
          entry.services(),
          key,
          comment,
          "goto " + (externalLocal ? entry.externalLocalChain() : entry.externalClusterChain()));
      // The Cluster list also serves eTP=Local's short-circuit for pod and node traffic.
      if (!cluster.isEmpty()) {
        element(
            entry.clusterDispatch(),
            key,
            null,
            dispatch(sp, ListKind.CLUSTER, cluster, entry, key));
      }
      if (route.external() == Verdict.LOCAL_ENDPOINTS) {
        element(entry.localDispatch(), key, null, dispatch(sp, ListKind.LOCAL, local, entry, key));
      }
    }
    if (!route.external().dispatches()) {
      element(
          entry.noEndpoints(),
          key,
          comment,
          verdict(route.external(), sp, cluster, local, entry, key));
    }
  }

  /** The nft verdict of a routing verdict; a dispatch also adds the elements behind it. */
  private String verdict(
      Verdict verdict,
      ServicePort sp,
      List<Endpoint> cluster,
      List<Endpoint> local,
      Entry entry,
      String key) {
    return switch (verdict) {
      case CLUSTER_ENDPOINTS -> dispatch(sp, ListKind.CLUSTER, cluster, entry, key);
      case LOCAL_ENDPOINTS -> dispatch(sp, ListKind.LOCAL, local, entry, key);
      case DROP -> DROP_VERDICT;
      case REJECT -> REJECT_VERDICT;
    };
  }

  /**
   * The verdict that sends a packet to one endpoint of {@code list}, plus the elements behind it.
   * Without affinity: {@code goto lb-N} and one endpoints-map element per index; with affinity:
   * {@code goto sticky-<hash>}.
   */
  private String dispatch(
      ServicePort sp, ListKind kind, List<Endpoint> list, Entry entry, String key) {
    if (sp.stickyTimeout() != null) {
      return "goto " + affinity.chain(sp, kind.name().toLowerCase(Locale.ROOT), list);
    }
    if (ownChain(waysIn, list.size())) {
      return "goto " + endpointsChain(sp, kind, list);
    }
    String prefix = kind == ListKind.CLUSTER ? entry.clusterLbPrefix() : entry.localLbPrefix();
    String map = prefix + list.size();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      element(map, key + " . " + i, null, target.ip() + " . " + target.port());
    }
    lbSizes.get(prefix).add(list.size());
    return "goto " + prefix + list.size();
  }

  /**
   * Whether a list reached by {@code waysIn} ways in (addresses and the NodePort) gets a chain of
   * its own rather than shared-map elements: in the shared maps every way in has its own copy of
   * the list, so a port with many addresses and many endpoints would cost their product. One chain
   * costs about what a few dozen elements cost to load, so a list gets its own chain once the
   * copies beyond the first would be more than {@link #SHARED_COPIES_LIMIT} elements; below that,
   * the common case (a ClusterIP, perhaps a NodePort) adds no chain per Service.
   */
  static boolean ownChain(int waysIn, int listSize) {
    return (long) (waysIn - 1) * listSize > SHARED_COPIES_LIMIT;
  }

  /** The most elements the extra copies of a list in the shared maps may cost. */
  static final int SHARED_COPIES_LIMIT = 64;

  /** The ways in of a port: its distinct addresses, and its NodePort. */
  static int waysIn(PortRoute route) {
    var addresses = new HashSet<String>();
    if (route.clusterIp() != null) {
      addresses.add(route.clusterIp());
    }
    addresses.addAll(route.externalIps());
    addresses.addAll(route.loadBalancerIps());
    return addresses.size() + (route.nodePort() != 0 ? 1 : 0);
  }

  /**
   * The chain that holds {@code list} once for every way in to the port: {@code endpoints-<hash>},
   * whose one rule picks an endpoint at random from a map written in the rule. Its first rules are
   * those of the {@code lb-N} chains (the ClusterIP masquerade check, which no NodePort address
   * matches). An endpoint change rewrites the rule, a partial sync like any other.
   */
  private String endpointsChain(ServicePort sp, ListKind kind, List<Endpoint> list) {
    String name =
        NftNames.ENDPOINTS_CHAIN_PREFIX
            + nameHash
                .apply(sp.name() + "/" + sp.protocol().lower() + "#" + kind.name())
                .substring(0, 13)
                .toLowerCase(Locale.ROOT);
    if (chains.containsKey(name)) {
      return name;
    }
    chain(name, TrafficMatches.masqueradeClusterIp(config).stream().toList());
    var choices = new StringBuilder();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      choices.append(i == 0 ? "" : ", ").append(i).append(" : ");
      choices.append(target.ip()).append(" . ").append(target.port());
    }
    rules
        .get(name)
        .add(
            NftRule.of(
                name,
                "meta l4proto "
                    + sp.protocol().lower()
                    + " dnat "
                    + NftSyntax.family(family)
                    + " to numgen random mod "
                    + list.size()
                    + " map { "
                    + choices
                    + " }"));
    return name;
  }

  private void firewall(String tuple, String comment, List<Cidr> sourceRanges) {
    element(FIREWALL_IPS, tuple, comment, null);
    for (Cidr range : sourceRanges) {
      element(FIREWALL_ALLOW, tuple + " . " + range, null, null);
    }
  }

  /** True the first time this port writes {@code key}. */
  private boolean firstUse(String key) {
    return written.add(key);
  }

  /**
   * The {@code lb-N} chains of one prefix, each with its own endpoints map of the same name: a
   * port's key there is its way in and the endpoint's index, {@code tuple . i}. A map per chain
   * lets a partial sync bring in a new endpoint count: the chain and its map load together.
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
      rules
          .get(name)
          .add(
              new NftRule(
                  name,
                  "dnat "
                      + NftSyntax.family(family)
                      + " to "
                      + match
                      + " . numgen random mod "
                      + size
                      + " map @"
                      + name,
                  null,
                  true));
    }
  }

  // ---------------------------------------------------------------- small helpers

  private void countLocality(Endpoint target) {
    if (!config.countsLocality()) {
      return;
    }
    localityEndpoints
        .computeIfAbsent(target.locality(), l -> new LinkedHashSet<>())
        .add(target.ip());
  }

  private String tuple(String address, String proto, int port) {
    return address + " . " + proto + " . " + port;
  }
}
