package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_IPS;
import static dev.proxima.proxy.render.nft.NftNames.EXTERNAL_CLUSTER;
import static dev.proxima.proxy.render.nft.NftNames.EXTERNAL_LOCAL;
import static dev.proxima.proxy.render.nft.NftNames.FIREWALL_ALLOW;
import static dev.proxima.proxy.render.nft.NftNames.FIREWALL_IPS;
import static dev.proxima.proxy.render.nft.NftNames.HAIRPINS;
import static dev.proxima.proxy.render.nft.NftNames.LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_CLUSTER_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_CLUSTER_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_EXTERNAL_CLUSTER;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_EXTERNAL_LOCAL;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.NO_ENDPOINT_NODEPORTS;
import static dev.proxima.proxy.render.nft.NftNames.NO_ENDPOINT_SERVICES;
import static dev.proxima.proxy.render.nft.NftNames.REJECT_CHAIN;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_IPS;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_NODEPORTS;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
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
      String clusterEndpoints,
      String localEndpoints,
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
            CLUSTER_ENDPOINTS,
            LOCAL_ENDPOINTS,
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
            NODEPORT_CLUSTER_ENDPOINTS,
            NODEPORT_LOCAL_ENDPOINTS,
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

  RenderPass(FamilySettings config) {
    this.config = config;
    this.family = config.family();
    this.decision = new RouteDecision(family, warnings);
    this.affinity =
        new AffinityChains(family, TrafficMatches.masqueradeClusterIp(config).stream().toList());
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
      if (route.clusterIp() != null) {
        sharedChainOf(route.internal(), route, Entry.ADDRESS, ofPort);
      }
      boolean external = false;
      for (String address : route.externalIps()) {
        external |= !address.equals(route.clusterIp());
      }
      for (String address : route.loadBalancerIps()) {
        external |= !address.equals(route.clusterIp());
      }
      if (external) {
        externalSharedChains(route, Entry.ADDRESS, ofPort);
      }
      if (route.nodePort() != 0) {
        externalSharedChains(route, Entry.NODEPORT, ofPort);
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
      PortRoute route, Entry entry, Map<String, TreeSet<Integer>> out) {
    if (route.anyEndpoints()) {
      if (!route.cluster().isEmpty()) {
        out.get(entry.clusterLbPrefix()).add(route.cluster().size());
      }
      if (route.external() == Verdict.LOCAL_ENDPOINTS) {
        out.get(entry.localLbPrefix()).add(route.local().size());
      }
    }
    if (!route.external().dispatches()) {
      sharedChainOf(route.external(), route, entry, out);
    }
  }

  /** The shared chain a verdict's dispatch adds, as {@link #verdict} and {@link #dispatch} do. */
  private static void sharedChainOf(
      Verdict verdict, PortRoute route, Entry entry, Map<String, TreeSet<Integer>> out) {
    switch (verdict) {
      case CLUSTER_ENDPOINTS -> out.get(entry.clusterLbPrefix()).add(route.cluster().size());
      case LOCAL_ENDPOINTS -> out.get(entry.localLbPrefix()).add(route.local().size());
      case DROP, REJECT -> {}
    }
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
    lbChains(LB_PREFIX, masquerade, daddrTuple, CLUSTER_ENDPOINTS);
    lbChains(LOCAL_LB_PREFIX, masquerade, daddrTuple, LOCAL_ENDPOINTS);
    lbChains(NODEPORT_LB_PREFIX, List.of(), portTuple, NODEPORT_CLUSTER_ENDPOINTS);
    lbChains(NODEPORT_LOCAL_LB_PREFIX, List.of(), portTuple, NODEPORT_LOCAL_ENDPOINTS);
  }

  // ---------------------------------------------------------------- per service port

  private void servicePort(ServicePortRules rules) {
    rules.route(decision).ifPresent(this::translate);
  }

  /** Spells one port's routing decision in this mode. */
  private void translate(PortRoute route) {
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
    observe(sp, held, cluster, local);
  }

  /**
   * A counted port's keys in the per-locality counting sets ({@link NftNames#serviceSet}): one per
   * Service address it holds and distinct endpoint port it may DNAT to, the same in all four sets,
   * so each locality's count exists from the start. The key is what the kernel sees after DNAT: the
   * address dialled ({@code ct original daddr}), the protocol and the endpoint's port, as nft
   * cannot put the original destination port in a concatenation; which set a connection is counted
   * in follows the endpoint's address, so endpoints coming and going leave these elements alone.
   * Two ports whose keys coincide share the element; the assembler counts it as the first's in name
   * order. NodePort connections are not counted per Service: their original destination is a node
   * address, which would put every node address in every counted NodePort's elements.
   */
  private void observe(
      ServicePort sp, List<String> addresses, List<Endpoint> cluster, List<Endpoint> local) {
    if (!config.countsLocality() || !sp.observeLocality()) {
      return;
    }
    counted = true;
    String proto = sp.protocol().lower();
    Set<Integer> endpointPorts = new TreeSet<>();
    for (Endpoint target : cluster) {
      endpointPorts.add(target.port());
    }
    for (Endpoint target : local) {
      endpointPorts.add(target.port());
    }
    for (String address : addresses) {
      for (int port : endpointPorts) {
        String key = tuple(address, proto, port);
        for (Locality locality : Locality.values()) {
          element(NftNames.serviceSet(locality), key, null, null);
        }
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
    String map = kind == ListKind.CLUSTER ? entry.clusterEndpoints() : entry.localEndpoints();
    String prefix = kind == ListKind.CLUSTER ? entry.clusterLbPrefix() : entry.localLbPrefix();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      element(map, key + " . " + i, null, target.ip() + " . " + target.port());
    }
    lbSizes.get(prefix).add(list.size());
    return "goto " + prefix + list.size();
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

  private void lbChains(String prefix, List<String> before, String match, String map) {
    for (int size : lbSizes.get(prefix)) {
      String name = prefix + size;
      chain(name, before);
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
                      + map,
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
