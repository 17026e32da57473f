package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_IPS;
import static dev.proxima.proxy.render.nft.NftNames.CLUSTER_IPS_CHECK;
import static dev.proxima.proxy.render.nft.NftNames.EXTERNAL_CLUSTER;
import static dev.proxima.proxy.render.nft.NftNames.EXTERNAL_LOCAL;
import static dev.proxima.proxy.render.nft.NftNames.FILTER_FORWARD;
import static dev.proxima.proxy.render.nft.NftNames.FILTER_INPUT;
import static dev.proxima.proxy.render.nft.NftNames.FILTER_OUTPUT;
import static dev.proxima.proxy.render.nft.NftNames.FILTER_OUTPUT_PRE_DNAT;
import static dev.proxima.proxy.render.nft.NftNames.FILTER_PREROUTING_PRE_DNAT;
import static dev.proxima.proxy.render.nft.NftNames.FIREWALL_ALLOW;
import static dev.proxima.proxy.render.nft.NftNames.FIREWALL_CHECK;
import static dev.proxima.proxy.render.nft.NftNames.FIREWALL_IPS;
import static dev.proxima.proxy.render.nft.NftNames.HAIRPINS;
import static dev.proxima.proxy.render.nft.NftNames.LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.LOCAL_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.MARK_FOR_MASQUERADE;
import static dev.proxima.proxy.render.nft.NftNames.MASQUERADING;
import static dev.proxima.proxy.render.nft.NftNames.NAT_OUTPUT;
import static dev.proxima.proxy.render.nft.NftNames.NAT_POSTROUTING;
import static dev.proxima.proxy.render.nft.NftNames.NAT_PREROUTING;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_CLUSTER_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_CLUSTER_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_ENDPOINTS_CHECK;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_EXTERNAL_CLUSTER;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_EXTERNAL_LOCAL;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_IPS;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_DISPATCH;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_ENDPOINTS;
import static dev.proxima.proxy.render.nft.NftNames.NODEPORT_LOCAL_LB_PREFIX;
import static dev.proxima.proxy.render.nft.NftNames.NO_ENDPOINT_NODEPORTS;
import static dev.proxima.proxy.render.nft.NftNames.NO_ENDPOINT_SERVICES;
import static dev.proxima.proxy.render.nft.NftNames.REJECT_CHAIN;
import static dev.proxima.proxy.render.nft.NftNames.SERVICES;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_CIDRS;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_ENDPOINTS_CHECK;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_IPS;
import static dev.proxima.proxy.render.nft.NftNames.SERVICE_NODEPORTS;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.PodInterface;
import dev.proxima.proxy.route.PortRoute;
import dev.proxima.proxy.route.RouteDecision;
import dev.proxima.proxy.route.Verdict;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One rendering pass: the fixed table ({@link #fixedTable}), or what one Service port adds to it
 * ({@link #fragment}). {@link RulesetAssembler} puts the two together; it is the only way to a
 * whole table, so what the live proxy loads and what {@code render} prints cannot drift apart.
 */
final class RenderPass {
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
  private final NftText text;
  private final List<String> warnings = new ArrayList<>();
  private final RouteDecision decision;

  /** Declared chains in load order. */
  private final Map<String, NftChain> chains = new LinkedHashMap<>();

  /** Rules per chain, in declaration order of the chains. */
  private final Map<String, List<NftRule>> rules = new LinkedHashMap<>();

  /** Sets and maps in load order. */
  private final Map<String, NftSet> sets = new LinkedHashMap<>();

  private final Map<String, List<NftElement>> elements = new LinkedHashMap<>();

  /** Endpoint counts in use per on-demand chain prefix. */
  private final Map<String, TreeSet<Integer>> lbSizes = new LinkedHashMap<>();

  private final Set<String> clusterIps = new LinkedHashSet<>();
  private final Set<String> hairpins = new LinkedHashSet<>();

  /** Endpoint addresses per locality, for the kernel's connection counters. */
  private final Map<Locality, Set<String>> localityEndpoints =
      new java.util.EnumMap<>(Locality.class);

  /** Whether the port rendered is counted per locality. */
  private boolean counted;

  /** Address tuples and NodePorts to the Service port that claimed them first. */
  private final Map<String, ServicePortName> claims = new HashMap<>();

  /** The ClientIP-affinity chains and timeout sets, created after the lb chains. */
  private final AffinityChains affinity;

  RenderPass(FamilySettings config) {
    this.config = config;
    this.family = config.family();
    this.decision = new RouteDecision(family, warnings);
    this.text = new NftText(family);
    this.affinity = new AffinityChains(family, masqueradeClusterIpRule().stream().toList());
    for (String prefix :
        List.of(LB_PREFIX, LOCAL_LB_PREFIX, NODEPORT_LB_PREFIX, NODEPORT_LOCAL_LB_PREFIX)) {
      lbSizes.put(prefix, new TreeSet<>());
    }
  }

  /**
   * The table without any Service port: the script that replaces the kernel's table with it, the
   * names of its chains and of its maps, which the assembler must tell from sets, and what of the
   * settings it left out.
   */
  FixedTable fixedTable() {
    var body = print();
    var maps = new java.util.HashSet<String>();
    sets.forEach(
        (name, set) -> {
          if (set.isMap()) {
            maps.add(name);
          }
        });
    var script = new StringBuilder(body.length() + 200);
    text.replaceTable(script);
    return new FixedTable(
        script.append(body).toString(),
        body,
        Set.copyOf(chains.keySet()),
        Set.copyOf(maps),
        Set.copyOf(fixedCounters()),
        warnings);
  }

  /**
   * What one Service port adds to the fixed table, as script lines, without printing the fixed
   * table: the assembler calls this once per changed port, so it must stay cheap.
   */
  ServiceFragment fragment(ServicePortRules rules) {
    servicePort(rules);
    String daddrTuple = NftSyntax.daddr(family) + " . meta l4proto . th dport";
    String portTuple = "meta l4proto . th dport";
    List<String> masquerade = masqueradeClusterIpRule().stream().toList();
    lbChains(LB_PREFIX, masquerade, daddrTuple, CLUSTER_ENDPOINTS);
    lbChains(LOCAL_LB_PREFIX, masquerade, daddrTuple, LOCAL_ENDPOINTS);
    lbChains(NODEPORT_LB_PREFIX, List.of(), portTuple, NODEPORT_CLUSTER_ENDPOINTS);
    lbChains(NODEPORT_LOCAL_LB_PREFIX, List.of(), portTuple, NODEPORT_LOCAL_ENDPOINTS);
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

  /** Set elements of these keys, when there are any. */
  private static void keys(
      Map<String, List<NftElement>> elements, String set, Collection<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    var ofSet = new ArrayList<NftElement>(keys.size());
    keys.forEach(key -> ofSet.add(NftElement.of(key)));
    elements.put(set, ofSet);
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
      if (claim(tuple, spn, "clusterIP")) {
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
      if (!claim(tuple, spn, "external address")) {
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
      if (claim(key, spn, "nodePort")) {
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

  /**
   * Claims a map key for {@code spn}. A key one Service port already holds cannot take a second
   * value (the kernel fails the whole transaction on such a clash), so later claimants lose.
   */
  private boolean claim(String key, ServicePortName spn, String what) {
    ServicePortName owner = claims.putIfAbsent(key, spn);
    if (owner == null) {
      return true;
    }
    if (!owner.equals(spn)) {
      warnings.add(
          spn
              + ": "
              + what
              + " "
              + key
              + " is already used by "
              + owner
              + "; skipped for this service port");
    }
    return false;
  }

  private void element(String set, String key, String comment, String value) {
    elements.computeIfAbsent(set, s -> new ArrayList<>()).add(new NftElement(key, value, comment));
  }

  // ---------------------------------------------------------------- fixed layout and printing

  /** The fixed table in load order: what every ruleset has, whatever its Service ports. */
  private String print() {
    String a = NftSyntax.addressType(family);
    String tupleType = a + " . inet_proto . inet_service";
    String portType = "inet_proto . inet_service";
    String endpointTypeof = NftSyntax.daddr(family) + " . th dport";
    String daddrTuple = NftSyntax.daddr(family) + " . meta l4proto . th dport";
    String portTuple = "meta l4proto . th dport";
    String nodePortMatch =
        !config.nodePortsListed()
            ? "fib daddr type local "
                + NftSyntax.daddr(family)
                + " != "
                + NftSyntax.loopback(family)
            : NftSyntax.daddr(family) + " @" + NODEPORT_IPS;
    String mark = config.masqueradeMark();

    // Base chains, then the fixed regular chains.
    base(NAT_PREROUTING, "nat", "prerouting", -100);
    base(NAT_OUTPUT, "nat", "output", -100);
    base(NAT_POSTROUTING, "nat", "postrouting", 100);
    base(FILTER_PREROUTING_PRE_DNAT, "filter", "prerouting", -110);
    base(FILTER_OUTPUT_PRE_DNAT, "filter", "output", -110);
    base(FILTER_INPUT, "filter", "input", 0);
    base(FILTER_FORWARD, "filter", "forward", 0);
    base(FILTER_OUTPUT, "filter", "output", 0);
    if (config.countsLocality()) {
      base(NftNames.FILTER_POSTROUTING, "filter", "postrouting", 0);
    }

    chain(MARK_FOR_MASQUERADE, "mark set mark or " + mark);
    chain(
        MASQUERADING,
        "ct status dnat "
            + NftSyntax.saddr(family)
            + " . "
            + NftSyntax.daddr(family)
            + " @"
            + HAIRPINS
            + " jump "
            + MARK_FOR_MASQUERADE,
        "mark and " + mark + " == 0 return",
        "mark set mark xor " + mark,
        "masquerade fully-random");
    String countNoEndpoints =
        config.countsLocality() ? "counter name \"" + NftNames.NO_ENDPOINTS_COUNTER + "\" " : "";
    chain(REJECT_CHAIN, countNoEndpoints + "reject");
    chain(NftNames.NO_ENDPOINT_DROP, countNoEndpoints + "drop");
    // The first set an endpoint address is in decides its locality, so an address two slices
    // disagree about is counted once. Before the node counter, a counted Service port's element in
    // that locality's counting set counts it too: a lookup in a set declared with a counter counts
    // the element it matches, and a connection of an uncounted port finds none and goes on.
    List<String> localityRules = new ArrayList<>();
    for (Locality locality : Locality.values()) {
      String endpointMatch = NftSyntax.daddr(family) + " @" + NftNames.localitySet(locality);
      localityRules.add(
          endpointMatch
              + " ct original "
              + NftSyntax.daddr(family)
              + " . meta l4proto . th dport @"
              + NftNames.serviceSet(locality));
      localityRules.add(
          endpointMatch + " counter name \"" + NftNames.localityCounter(locality) + "\" return");
    }
    if (config.countsLocality()) {
      chain(NftNames.LOCALITY_CHAIN, localityRules);
    }
    chain(SERVICE_ENDPOINTS_CHECK, daddrTuple + " vmap @" + NO_ENDPOINT_SERVICES);
    chain(
        NODEPORT_ENDPOINTS_CHECK,
        nodePortMatch + " " + portTuple + " vmap @" + NO_ENDPOINT_NODEPORTS);
    // A port a ClusterIP does not serve is refused; an address of the Service CIDRs no Service
    // holds
    // goes nowhere, so it is dropped rather than routed on (empty set without ServiceCIDR objects).
    chain(
        CLUSTER_IPS_CHECK,
        NftSyntax.daddr(family) + " @" + CLUSTER_IPS + " reject",
        NftSyntax.daddr(family) + " @" + SERVICE_CIDRS + " drop");
    chain(
        FIREWALL_CHECK,
        daddrTuple
            + " @"
            + FIREWALL_IPS
            + " "
            + daddrTuple
            + " . "
            + NftSyntax.saddr(family)
            + " != @"
            + FIREWALL_ALLOW
            + " drop");
    chain(
        EXTERNAL_CLUSTER, "jump " + MARK_FOR_MASQUERADE, daddrTuple + " vmap @" + CLUSTER_DISPATCH);
    chain(EXTERNAL_LOCAL, externalLocal(daddrTuple, CLUSTER_DISPATCH, LOCAL_DISPATCH));
    chain(
        NODEPORT_EXTERNAL_CLUSTER,
        "jump " + MARK_FOR_MASQUERADE,
        portTuple + " vmap @" + NODEPORT_CLUSTER_DISPATCH);
    chain(
        NODEPORT_EXTERNAL_LOCAL,
        externalLocal(portTuple, NODEPORT_CLUSTER_DISPATCH, NODEPORT_LOCAL_DISPATCH));
    chain(
        SERVICES,
        daddrTuple + " vmap @" + SERVICE_IPS,
        nodePortMatch + " " + portTuple + " vmap @" + SERVICE_NODEPORTS);

    // The base chains' jumps.
    rule(NAT_PREROUTING, "jump " + SERVICES);
    rule(NAT_OUTPUT, "jump " + SERVICES);
    rule(NAT_POSTROUTING, "jump " + MASQUERADING);
    rule(FILTER_PREROUTING_PRE_DNAT, "ct state new jump " + FIREWALL_CHECK);
    rule(FILTER_OUTPUT_PRE_DNAT, "ct state new jump " + FIREWALL_CHECK);
    rule(FILTER_INPUT, "ct state new jump " + NODEPORT_ENDPOINTS_CHECK);
    rule(FILTER_INPUT, "ct state new jump " + SERVICE_ENDPOINTS_CHECK);
    for (String chain : List.of(FILTER_FORWARD, FILTER_OUTPUT)) {
      rule(chain, "ct state new jump " + SERVICE_ENDPOINTS_CHECK);
      rule(chain, "ct state new jump " + CLUSTER_IPS_CHECK);
    }

    // Every DNATed connection's first packet passes postrouting, whichever way it came in.
    if (config.countsLocality()) {
      rule(
          NftNames.FILTER_POSTROUTING,
          "ct state new ct status dnat jump " + NftNames.LOCALITY_CHAIN);
    }

    // Sets and maps.
    set(CLUSTER_IPS, "type " + a + " ;", "active ClusterIPs");
    set(SERVICE_CIDRS, "type " + a + " ; flags interval ;", "ServiceCIDR ranges");
    if (config.nodePortsListed()) {
      // Declared even when empty: an empty set matches no address, so NodePorts fail closed.
      set(NODEPORT_IPS, "type " + a + " ;", "addresses that accept NodePorts");
    }
    map(SERVICE_IPS, tupleType + " : verdict", "ClusterIPs, externalIPs and LB IPs");
    map(CLUSTER_DISPATCH, tupleType + " : verdict", "external address to Cluster lb chain");
    map(LOCAL_DISPATCH, tupleType + " : verdict", "external address to Local lb chain");
    map(SERVICE_NODEPORTS, portType + " : verdict", "NodePorts");
    map(NODEPORT_CLUSTER_DISPATCH, portType + " : verdict", "NodePort to Cluster lb chain");
    map(NODEPORT_LOCAL_DISPATCH, portType + " : verdict", "NodePort to Local lb chain");
    String numgen = " . numgen random mod 1 : ";
    typeofMap(CLUSTER_ENDPOINTS, daddrTuple + numgen + endpointTypeof, "Cluster endpoint i");
    typeofMap(LOCAL_ENDPOINTS, daddrTuple + numgen + endpointTypeof, "Local endpoint i");
    typeofMap(
        NODEPORT_CLUSTER_ENDPOINTS, portTuple + numgen + endpointTypeof, "Cluster endpoint i");
    typeofMap(NODEPORT_LOCAL_ENDPOINTS, portTuple + numgen + endpointTypeof, "Local endpoint i");
    map(NO_ENDPOINT_SERVICES, tupleType + " : verdict", "addresses without usable endpoints");
    map(NO_ENDPOINT_NODEPORTS, portType + " : verdict", "NodePorts without usable endpoints");
    set(FIREWALL_IPS, "type " + tupleType + " ;", "LB addresses with loadBalancerSourceRanges");
    set(
        FIREWALL_ALLOW,
        "type " + tupleType + " . " + a + " ; flags interval ;",
        "allowed sources per LB address");
    set(HAIRPINS, "type " + a + " . " + a + " ;", "endpoint . endpoint");
    if (config.countsLocality()) {
      for (Locality locality : Locality.values()) {
        set(
            NftNames.localitySet(locality),
            "type " + a + " ;",
            "endpoints of locality " + locality.label());
      }
      for (Locality locality : Locality.values()) {
        set(
            NftNames.serviceSet(locality),
            "type " + tupleType + " ; counter ;",
            "Service address . proto . endpoint port of counted ports, " + locality.label());
      }
    }

    // The only elements of the fixed table; the Service ports' fragments bring the rest.
    keys(elements, NODEPORT_IPS, nodePortAddresses());

    StringBuilder out = new StringBuilder();
    for (String counter : fixedCounters()) {
      text.addCounter(out, counter);
    }
    chains.values().forEach(chain -> text.addChain(out, chain));
    sets.values().forEach(set -> text.addSet(out, set));
    rules.values().forEach(chainRules -> chainRules.forEach(rule -> text.addRule(out, rule)));
    for (String set : sets.keySet()) {
      text.addElements(out, set, elements.getOrDefault(set, List.of()));
    }
    return out.toString();
  }

  /** The NodePort addresses of the settings but loopback ones, which get a warning each. */
  private List<String> nodePortAddresses() {
    List<String> usable = new ArrayList<>();
    Cidr loopback = NftAddresses.parseCidr(NftSyntax.loopback(family), family).orElseThrow();
    for (String address : config.nodePortAddresses()) {
      if (loopback.contains(cidrOf(address))) {
        warnings.add(
            "nodePortAddresses: "
                + address
                + " is a loopback address; NodePorts on loopback are not supported, ignored");
      } else {
        usable.add(address);
      }
    }
    return usable;
  }

  /**
   * The node-wide named counters, read by the metrics at scrape time; none with locality counting
   * off.
   */
  private List<String> fixedCounters() {
    List<String> names = new ArrayList<>();
    if (!config.countsLocality()) {
      return names;
    }
    for (Locality locality : Locality.values()) {
      names.add(NftNames.localityCounter(locality));
    }
    names.add(NftNames.NO_ENDPOINTS_COUNTER);
    return names;
  }

  private List<String> externalLocal(String match, String clusterMap, String localMap) {
    List<String> list = new ArrayList<>();
    if (config.detectsLocalTraffic()) {
      list.add(podTraffic(false) + " " + match + " vmap @" + clusterMap);
    }
    list.add("fib saddr type local jump " + MARK_FOR_MASQUERADE);
    list.add("fib saddr type local " + match + " vmap @" + clusterMap);
    list.add(match + " vmap @" + localMap);
    return list;
  }

  private Optional<String> masqueradeClusterIpRule() {
    String clusterIpMatch =
        NftSyntax.daddr(family) + " @" + CLUSTER_IPS + " jump " + MARK_FOR_MASQUERADE;
    if (config.masqueradeAll()) {
      return Optional.of(clusterIpMatch);
    }
    if (config.detectsLocalTraffic()) {
      return Optional.of(podTraffic(true) + " " + clusterIpMatch);
    }
    return Optional.empty();
  }

  /** The match for traffic from pods, or with {@code negated} for traffic from elsewhere. */
  private String podTraffic(boolean negated) {
    String op = negated ? " != " : " ";
    PodInterface pods = config.podInterface();
    if (pods != null) {
      return "iifname" + op + "\"" + pods.name() + (pods.prefix() ? "*" : "") + "\"";
    }
    List<String> cidrs = config.clusterCidrs();
    String set = cidrs.size() == 1 ? cidrs.get(0) : "{ " + String.join(", ", cidrs) + " }";
    return NftSyntax.saddr(family) + op + set;
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

  private void base(String name, String type, String hook, int priority) {
    chains.put(name, NftChain.base(name, type, hook, priority));
    rules.put(name, new ArrayList<>());
  }

  private void chain(String name, String... chainRules) {
    chain(name, List.of(chainRules));
  }

  private void chain(String name, List<String> chainRules) {
    chains.put(name, NftChain.regular(name));
    var ofChain = new ArrayList<NftRule>(chainRules.size() + 1);
    chainRules.forEach(rule -> ofChain.add(NftRule.of(name, rule)));
    rules.put(name, ofChain);
  }

  private void rule(String chain, String rule) {
    rules.get(chain).add(NftRule.of(chain, rule));
  }

  private void set(String name, String declaration, String comment) {
    sets.put(name, NftSet.set(name, declaration, comment));
  }

  private void map(String name, String type, String comment) {
    sets.put(name, NftSet.map(name, "type " + type + " ;", comment));
  }

  private void typeofMap(String name, String typeof, String comment) {
    sets.put(name, NftSet.map(name, "typeof " + typeof + " ;", comment));
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

  private Cidr cidrOf(String address) {
    return NftAddresses.parseCidr(address, family).orElseThrow();
  }
}
