package dev.proxima.proxy.nftables;

/** The names in table {@code proxima}; one table per family, so they need no prefix. */
public final class NftNames {
  private NftNames() {}

  public static final String TABLE = "proxima";

  public static final String NAT_PREROUTING = "nat-prerouting";
  public static final String NAT_OUTPUT = "nat-output";
  public static final String NAT_POSTROUTING = "nat-postrouting";
  public static final String FILTER_PREROUTING_PRE_DNAT = "filter-prerouting-pre-dnat";
  public static final String FILTER_OUTPUT_PRE_DNAT = "filter-output-pre-dnat";
  public static final String FILTER_INPUT = "filter-input";
  public static final String FILTER_FORWARD = "filter-forward";
  public static final String FILTER_OUTPUT = "filter-output";

  public static final String SERVICES = "services";
  public static final String MASQUERADING = "masquerading";
  public static final String MARK_FOR_MASQUERADE = "mark-for-masquerade";
  public static final String REJECT_CHAIN = "reject-chain";
  public static final String SERVICE_ENDPOINTS_CHECK = "service-endpoints-check";
  public static final String NODEPORT_ENDPOINTS_CHECK = "nodeport-endpoints-check";
  public static final String CLUSTER_IPS_CHECK = "cluster-ips-check";
  public static final String FIREWALL_CHECK = "firewall-check";
  public static final String EXTERNAL_CLUSTER = "external-cluster";
  public static final String EXTERNAL_LOCAL = "external-local";
  public static final String NODEPORT_EXTERNAL_CLUSTER = "nodeport-external-cluster";
  public static final String NODEPORT_EXTERNAL_LOCAL = "nodeport-external-local";

  // Prefixes of chains created on demand; lb-N chains are one per endpoint count N.
  public static final String LB_PREFIX = "lb-";
  public static final String LOCAL_LB_PREFIX = "local-lb-";
  public static final String NODEPORT_LB_PREFIX = "nodeport-lb-";
  public static final String NODEPORT_LOCAL_LB_PREFIX = "nodeport-local-lb-";
  public static final java.util.List<String> LB_PREFIXES =
      java.util.List.of(LB_PREFIX, LOCAL_LB_PREFIX, NODEPORT_LB_PREFIX, NODEPORT_LOCAL_LB_PREFIX);
  public static final String ENDPOINTS_CHAIN_PREFIX = "endpoints-";

  public static boolean isLbChain(String name) {
    return LB_PREFIXES.stream()
        .anyMatch(
            prefix ->
                name.startsWith(prefix)
                    && name.length() > prefix.length()
                    && name.substring(prefix.length()).chars().allMatch(c -> c >= '0' && c <= '9'));
  }

  /** A firewall chain and its set, one per source-range list, named by a hash of the list. */
  public static final String FIREWALL_PREFIX = "fw-";

  public static boolean isFirewallChain(String name) {
    return name.startsWith(FIREWALL_PREFIX);
  }

  /** Whether Service ports share the chain: an {@code lb-N} or a firewall chain. */
  public static boolean isSharedChain(String name) {
    return isLbChain(name) || isFirewallChain(name);
  }

  public static final String STICKY_PREFIX = "sticky-";
  public static final String AFFINITY_PREFIX = "affinity-";

  public static final String CLUSTER_IPS = "cluster-ips";
  public static final String NODEPORT_IPS = "nodeport-ips";
  public static final String SERVICE_IPS = "service-ips";
  public static final String SERVICE_NODEPORTS = "service-nodeports";
  public static final String CLUSTER_DISPATCH = "cluster-dispatch";
  public static final String LOCAL_DISPATCH = "local-dispatch";
  public static final String NODEPORT_CLUSTER_DISPATCH = "nodeport-cluster-dispatch";
  public static final String NODEPORT_LOCAL_DISPATCH = "nodeport-local-dispatch";
  public static final String NO_ENDPOINT_SERVICES = "no-endpoint-services";
  public static final String NO_ENDPOINT_NODEPORTS = "no-endpoint-nodeports";
  public static final String FIREWALL_IPS = "firewall-ips";
  public static final String HAIRPINS = "hairpins";

  public static final String FILTER_POSTROUTING = "filter-postrouting";

  public static final String LOCALITY_CHAIN = "locality";
  public static final String LOCALITY_PREFIX = "locality-";
  public static final String ENDPOINTS_SUFFIX = "-endpoints";
  public static final String NO_ENDPOINTS_COUNTER = "no-endpoints";
  public static final String NO_ENDPOINT_DROP = "no-endpoint-drop";

  public static final String SERVICE_SET_PREFIX = "service-";
  public static final String COUNTERS = "connection-counts";

  /** With null, the key of connections without endpoints; as nft lists it. */
  public static String counterKey(dev.proxima.proxy.model.Locality locality) {
    int key = locality == null ? 0 : locality.ordinal() + 1;
    return String.format("0x%08x", key);
  }

  public static String localitySet(dev.proxima.proxy.model.Locality locality) {
    return LOCALITY_PREFIX + locality.label() + ENDPOINTS_SUFFIX;
  }

  public static String serviceSet(dev.proxima.proxy.model.Locality locality) {
    return SERVICE_SET_PREFIX + locality.label();
  }

  public static final java.util.List<String> SERVICE_SETS =
      java.util.Arrays.stream(dev.proxima.proxy.model.Locality.values())
          .map(NftNames::serviceSet)
          .toList();

  public static final String SERVICE_CIDRS = "service-cidrs";
}
