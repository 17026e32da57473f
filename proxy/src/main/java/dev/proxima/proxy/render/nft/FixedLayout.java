package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.nftables.NftNames.*;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftSyntax;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.PodInterface;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** Table {@code proxima} without any Service port. */
final class FixedLayout extends TableObjects {
  private final FamilySettings config;
  private final IpFamily family;
  private final NftText text;
  final List<String> warnings = new ArrayList<>();

  /** Replaces the kernel's table with this one. */
  final String script;

  FixedLayout(FamilySettings config) {
    this.config = config;
    this.family = config.family();
    this.text = new NftText(family);
    var body = print();
    var script = new NftTransaction(text, body.length() + 200).replaceTable();
    this.script = script.appendWritten(body).toString();
  }

  boolean isMap(String name) {
    var set = sets.get(name);
    return set != null && set.isMap();
  }

  private String print() {
    String a = NftSyntax.addressType(family);
    String tupleType = a + " . inet_proto . inet_service";
    String portType = "inet_proto . inet_service";
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
        "ct status dnat %s . %s @%s jump %s"
            .formatted(
                NftSyntax.saddr(family), NftSyntax.daddr(family), HAIRPINS, MARK_FOR_MASQUERADE),
        "mark and " + mark + " == 0 return",
        "mark set mark xor " + mark,
        "masquerade fully-random");
    // A count is an element of a set declared with a counter, counted by a lookup of its constant
    // key: a set lists alone, where nft 1.0.6 lists a named counter only after reading the table.
    if (config.countsLocality()) {
      String count = countIn(NftNames.counterKey(null));
      chain(REJECT_CHAIN, count, "reject");
      chain(NftNames.NO_ENDPOINT_DROP, count, "drop");
    } else {
      chain(REJECT_CHAIN, "reject");
      chain(NftNames.NO_ENDPOINT_DROP, "drop");
    }
    // The first set an endpoint address is in decides its locality, so it is counted once. Before
    // the node counter, a counted port's element in the locality's counting set counts it too.
    List<String> localityRules = new ArrayList<>();
    for (Locality locality : Locality.values()) {
      String endpointMatch = NftSyntax.daddr(family) + " @" + NftNames.localitySet(locality);
      // ct original proto-dst has a type only after a protocol match.
      localityRules.add(
          ("%s meta l4proto { tcp, udp, sctp } ct original %s"
                  + " . meta l4proto . ct original proto-dst @%s")
              .formatted(endpointMatch, NftSyntax.daddr(family), NftNames.serviceSet(locality)));
      localityRules.add(endpointMatch + " " + countIn(NftNames.counterKey(locality)) + " return");
    }
    if (config.countsLocality()) {
      chain(NftNames.LOCALITY_CHAIN, localityRules);
    }
    chain(SERVICE_ENDPOINTS_CHECK, daddrTuple + " vmap @" + NO_ENDPOINT_SERVICES);
    chain(
        NODEPORT_ENDPOINTS_CHECK,
        nodePortMatch + " " + portTuple + " vmap @" + NO_ENDPOINT_NODEPORTS);
    // An address of the Service CIDRs no Service holds is dropped rather than routed on.
    chain(
        CLUSTER_IPS_CHECK,
        NftSyntax.daddr(family) + " @" + CLUSTER_IPS + " reject",
        NftSyntax.daddr(family) + " @" + SERVICE_CIDRS + " drop");
    chain(FIREWALL_CHECK, daddrTuple + " vmap @" + FIREWALL_IPS);
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
    map(NO_ENDPOINT_SERVICES, tupleType + " : verdict", "addresses without usable endpoints");
    map(NO_ENDPOINT_NODEPORTS, portType + " : verdict", "NodePorts without usable endpoints");
    // Each source-range list is a set behind its own chain: ranges concatenated with addresses
    // load in time growing faster than n log n.
    map(
        FIREWALL_IPS,
        tupleType + " : verdict",
        "LB addresses with loadBalancerSourceRanges to their firewall chain");
    set(HAIRPINS, "type " + a + " . " + a + " ;", "endpoint . endpoint");
    if (config.countsLocality()) {
      set(
          NftNames.COUNTERS,
          "type mark ; counter ;",
          "connections per locality, without endpoints");
      var keys = new ArrayList<>(Stream.of(Locality.values()).map(NftNames::counterKey).toList());
      keys.add(NftNames.counterKey(null));
      keys(elements, NftNames.COUNTERS, keys);
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
            "Service address . proto . port of counted ports, " + locality.label());
      }
    }

    keys(elements, NODEPORT_IPS, nodePortAddresses());

    var out = new NftTransaction(text, 8192);
    appendTo(out, Set.of());
    return out.toString();
  }

  private List<String> nodePortAddresses() {
    List<String> usable = new ArrayList<>();
    Cidr loopback = NftAddresses.parseCidr(NftSyntax.loopback(family), family).orElseThrow();
    for (String address : config.nodePortAddresses()) {
      if (loopback.contains(NftAddresses.parseCidr(address, family).orElseThrow())) {
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

  private static String countIn(String key) {
    return "meta mark & 0 | " + key + " @" + NftNames.COUNTERS;
  }

  private List<String> externalLocal(String match, String clusterMap, String localMap) {
    List<String> list = new ArrayList<>();
    if (config.detectsLocalTraffic()) {
      list.add(podTraffic(config, false) + " " + match + " vmap @" + clusterMap);
    }
    list.add("fib saddr type local jump " + MARK_FOR_MASQUERADE);
    list.add("fib saddr type local " + match + " vmap @" + clusterMap);
    list.add(match + " vmap @" + localMap);
    return list;
  }

  /** First in every lb and sticky chain; none when pod traffic cannot be told apart. */
  static Optional<String> masqueradeClusterIp(FamilySettings config) {
    IpFamily family = config.family();
    String clusterIpMatch =
        NftSyntax.daddr(family) + " @" + CLUSTER_IPS + " jump " + MARK_FOR_MASQUERADE;
    if (config.masqueradeAll()) {
      return Optional.of(clusterIpMatch);
    }
    if (config.detectsLocalTraffic()) {
      return Optional.of(podTraffic(config, true) + " " + clusterIpMatch);
    }
    return Optional.empty();
  }

  static String podTraffic(FamilySettings config, boolean negated) {
    IpFamily family = config.family();
    String op = negated ? " != " : " ";
    PodInterface pods = config.podInterface();
    if (pods != null) {
      return "iifname" + op + "\"" + pods.name() + (pods.prefix() ? "*" : "") + "\"";
    }
    List<String> cidrs = config.clusterCidrs();
    String set = cidrs.size() == 1 ? cidrs.get(0) : "{ " + String.join(", ", cidrs) + " }";
    return NftSyntax.saddr(family) + op + set;
  }
}
