package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;

/**
 * The layout of table {@code proxima}, which {@link RulesetAssembler} writes (its full sync is the
 * one way to a whole table, for the live proxy and the {@code render} command alike), and the
 * script that deletes the table.
 *
 * <p>Semantics are kube-proxy's nftables mode; the layout is Proxima's own. Where kube-proxy gives
 * every Service port and endpoint its own chains, Proxima keeps per-Service state in set and map
 * elements, so the number of chains does not grow with the number of Services:
 *
 * <ul>
 *   <li>{@code services} looks up {@code daddr . l4proto . dport} in {@code service-ips} (and
 *       {@code l4proto . dport} in {@code service-nodeports}) and jumps, by verdict map, to {@code
 *       lb-N}: the shared chain for every endpoint list of N endpoints;
 *   <li>{@code lb-N} DNATs with {@code numgen random mod N} as the last component of a lookup in
 *       its own map {@code lb-N}, whose key is the way in (address tuple or NodePort) plus the
 *       endpoint index and whose value is the endpoint's {@code address . port};
 *   <li>a port whose list would be copied into that map for so many ways in that the copies cost
 *       more than a chain gets {@code endpoints-<hash>}, which holds its list once in its rule;
 *   <li>external addresses and NodePorts go through {@code external-cluster} or {@code
 *       external-local} (masquerading and eTP=Local short-circuits, as upstream) and then through
 *       {@code cluster-dispatch} / {@code local-dispatch} to the same kind of lb chains;
 *   <li>REJECT/DROP for ports without usable endpoints, source-range firewalling and hairpin
 *       masquerading are lookups in {@code no-endpoint-*}, {@code firewall-*} and {@code hairpins}.
 * </ul>
 *
 * <p>The exception is ClientIP session affinity: a map element cannot remember which endpoint a
 * client got, so those ports get chains, as in kube-proxy: {@code sticky-<hash>} per endpoint list
 * and {@code affinity-<hash>} (a chain and a timeout set) per endpoint.
 *
 * <p>A script that replaces the whole table empties the affinity memory (the timeout sets);
 * established connections keep their NAT in conntrack. Over a table already loaded the live proxy
 * therefore loads deltas for partial syncs and, for full syncs, an in-place replacement that keeps
 * the affinity sets.
 */
public final class NftRenderer {
  private NftRenderer() {}

  /** Deletes table {@code proxima} of {@code family}; succeeds whether or not it exists. */
  public static String cleanupScript(IpFamily family) {
    return new NftText(family).cleanup();
  }
}
