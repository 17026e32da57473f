package dev.proxima.proxy.nftables;

/**
 * The names in Proxima's nftables table. Everything lives in one table per family, so the names
 * need no prefix. Per-Service state lives in the elements of the sets and maps below, not in
 * chains; only the load-balancing chains ({@code lb-N}: one per distinct endpoint count) and the
 * session-affinity chains are created on demand.
 */
public final class NftNames {
  private NftNames() {}

  public static final String TABLE = "proxima";

  // Base chains.
  public static final String NAT_PREROUTING = "nat-prerouting";
  public static final String NAT_OUTPUT = "nat-output";
  public static final String NAT_POSTROUTING = "nat-postrouting";
  public static final String FILTER_PREROUTING_PRE_DNAT = "filter-prerouting-pre-dnat";
  public static final String FILTER_OUTPUT_PRE_DNAT = "filter-output-pre-dnat";
  public static final String FILTER_INPUT = "filter-input";
  public static final String FILTER_FORWARD = "filter-forward";
  public static final String FILTER_OUTPUT = "filter-output";

  // Fixed regular chains.
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

  // Chains created on demand: prefix + endpoint count, or prefix + hash for session affinity.
  public static final String LB_PREFIX = "lb-";
  public static final String LOCAL_LB_PREFIX = "local-lb-";
  public static final String NODEPORT_LB_PREFIX = "nodeport-lb-";
  public static final String NODEPORT_LOCAL_LB_PREFIX = "nodeport-local-lb-";

  /**
   * {@code endpoints-<hash>}: the chain of one endpoint list of a port with so many addresses and
   * endpoints that copies of the list in the shared maps would cost their product.
   */
  public static final String ENDPOINTS_CHAIN_PREFIX = "endpoints-";

  /** Whether {@code name} is an {@code lb-N} chain (or its map) of any of the four prefixes. */
  public static boolean isLbChain(String name) {
    for (String prefix :
        java.util.List.of(
            LB_PREFIX, LOCAL_LB_PREFIX, NODEPORT_LB_PREFIX, NODEPORT_LOCAL_LB_PREFIX)) {
      if (name.startsWith(prefix)
          && name.length() > prefix.length()
          && name.substring(prefix.length()).chars().allMatch(c -> c >= '0' && c <= '9')) {
        return true;
      }
    }
    return false;
  }

  /** {@code sticky-<hash>}: the dispatch chain of one endpoint list of a ClientIP-affinity port. */
  public static final String STICKY_PREFIX = "sticky-";

  /** {@code affinity-<hash>}: a chain and a same-named timeout set per affinity endpoint. */
  public static final String AFFINITY_PREFIX = "affinity-";

  // Sets and maps.
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
  public static final String FIREWALL_ALLOW = "firewall-allow";
  public static final String HAIRPINS = "hairpins";

  /**
   * Locality counting: {@code filter-postrouting} jumps to {@code locality} for new DNATed
   * connections, which counts each in the element of {@link #COUNTERS} of the first {@code
   * locality-<label>-endpoints} set its destination is in. No-endpoint drops and rejects go through
   * chains that count them in the element for connections without endpoints.
   */
  public static final String FILTER_POSTROUTING = "filter-postrouting";

  public static final String LOCALITY_CHAIN = "locality";
  public static final String LOCALITY_PREFIX = "locality-";
  public static final String ENDPOINTS_SUFFIX = "-endpoints";
  public static final String NO_ENDPOINTS_COUNTER = "no-endpoints";
  public static final String NO_ENDPOINT_DROP = "no-endpoint-drop";

  /**
   * Per-Service locality counting: one set per locality, {@code service-<label>}, declared with
   * {@code counter}, so each element counts the lookups that match it. Its elements are {@code
   * Service address . protocol . port}, one per address a counted Service port holds, in all four
   * sets; the {@code locality} chain looks up {@code ct original daddr . l4proto . ct original
   * proto-dst} (what the client dialled) in the set of the endpoint's locality. Endpoints coming
   * and going touch none of these elements.
   */
  public static final String SERVICE_SET_PREFIX = "service-";

  /**
   * The set of node-wide connection counts, declared with {@code counter}: one element per locality
   * and one for connections without endpoints ({@link #counterKey}). A rule counts a packet by
   * looking up its element's key as a constant ({@code meta mark & 0 | key}), so the counts are
   * read by listing this set alone.
   */
  public static final String COUNTERS = "connection-counts";

  /**
   * The key of a locality's element in {@link #COUNTERS}, or with null the key of connections
   * without endpoints; as nft lists it.
   */
  public static String counterKey(dev.proxima.proxy.model.Locality locality) {
    int key = locality == null ? 0 : locality.ordinal() + 1;
    return String.format("0x%08x", key);
  }

  /** The name a count is reported under: the former named counter of one locality. */
  public static String localityCounter(dev.proxima.proxy.model.Locality locality) {
    return LOCALITY_PREFIX + locality.label();
  }

  /** The set of endpoint addresses of one locality. */
  public static String localitySet(dev.proxima.proxy.model.Locality locality) {
    return LOCALITY_PREFIX + locality.label() + ENDPOINTS_SUFFIX;
  }

  /** The counting set of one locality's connections per counted Service port. */
  public static String serviceSet(dev.proxima.proxy.model.Locality locality) {
    return SERVICE_SET_PREFIX + locality.label();
  }

  /** The four counting sets, in the order of the localities. */
  public static final java.util.List<String> SERVICE_SETS =
      java.util.Arrays.stream(dev.proxima.proxy.model.Locality.values())
          .map(NftNames::serviceSet)
          .toList();

  /** The ServiceCIDRs' ranges: traffic to an address in them that no Service holds is dropped. */
  public static final String SERVICE_CIDRS = "service-cidrs";
}
