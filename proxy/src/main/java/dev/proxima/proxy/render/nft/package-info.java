/**
 * The nftables data plane's rendering, pure: {@link RulesetAssembler} turns the proxy's desired
 * state into {@code nft -f} transactions for table {@code proxima} of one family: the whole table
 * (a full sync; what {@code render} prints), or what changed (a partial sync).
 *
 * <h2>Objects, one serializer</h2>
 *
 * Rendering produces objects, never text: {@link FixedLayout} builds the fixed table, and {@link
 * RenderPass} translates one Service port's routing decision into a {@link ServiceFragment} of
 * {@link dev.proxima.proxy.nftables.NftChain}s with their {@link
 * dev.proxima.proxy.nftables.NftRule}s, {@link dev.proxima.proxy.nftables.NftSet}s and {@link
 * dev.proxima.proxy.nftables.NftElement}s (a key, a value for a map, a comment). {@link
 * RulesetAssembler} diffs and reference-counts those objects by key and kind, and it alone claims
 * keys ({@link KeyOwners}). {@link dev.proxima.proxy.nftables.NftText} is the serializer: the only
 * place nft text is written from the objects, and where comments are sanitised; every script and
 * transaction is an {@link dev.proxima.proxy.nftables.NftTransaction}, its operations in order.
 * Nothing reads Proxima's own text back. A full sync writes the objects under names of a generation
 * of its own ({@link dev.proxima.proxy.nftables.NftText}), beside the ones the kernel runs, and
 * switches to them in the base chains.
 *
 * <h2>Layout</h2>
 *
 * Semantics are kube-proxy's nftables mode; the layout is Proxima's own. Per-Service and
 * per-endpoint state are set and map elements, so the number of chains does not depend on the
 * number of Services. Keys are {@code addr . l4proto . port} for ClusterIPs, externalIPs and
 * load-balancer IPs, and {@code l4proto . port} for NodePorts.
 *
 * <pre>
 * nat-prerouting, nat-output ─▶ services
 *   service-ips[daddr . proto . dport]  ─▶ lb-N | local-lb-M | endpoints-H | sticky-H (ClusterIP)
 *                                       ─▶ external-cluster | external-local  (externalIP, LB IP)
 *   service-nodeports[proto . dport]    ─▶ nodeport-external-cluster | nodeport-external-local
 * external-*    ─▶ cluster-dispatch / local-dispatch[tuple] ─▶ lb-N | local-lb-M | endpoints-H
 * lb-N             dnat to map lb-N[tuple . (numgen random mod N)]   (a map per chain)
 * endpoints-H      dnat to numgen random mod N map { 0 : ep0, 1 : ep1, ... }
 * nat-postrouting ─▶ masquerading: hairpins[saddr . daddr], then the masquerade mark
 * filter-*-pre-dnat ─▶ firewall-check: firewall-ips / firewall-allow (loadBalancerSourceRanges)
 * filter-input/forward/output (after DNAT) ─▶ no-endpoint-services / no-endpoint-nodeports
 *                                              (goto reject-chain, or drop), cluster-ips-check
 * filter-postrouting ─▶ locality: counters[locality], service-&lt;locality&gt;[ct original tuple]
 * </pre>
 *
 * <p>{@code lb-N} exists once per distinct endpoint count N in use (likewise {@code local-lb-M},
 * {@code nodeport-lb-N}, {@code nodeport-local-lb-M}), each with a map of the same name that holds
 * the endpoints of the ports with that count, keyed by way in and index. The chain and its map are
 * declared together (nft 1.0.6 types a rule that looks up a {@code typeof} map only in the
 * transaction that declares the map), so a new endpoint count loads in a partial sync; an endpoint
 * count change moves the port's elements from one map to the other.
 *
 * <p>In those maps a port's list is copied once per way in (its ClusterIP, each externalIP and
 * load-balancer IP, its NodePort). When those copies beyond the first would exceed {@link
 * RenderPass#SHARED_COPIES_LIMIT} elements, the list gets a chain of its own instead, {@code
 * endpoints-<hash>}, holding the list once in its rule; every way in jumps there, so a port costs
 * its addresses plus its endpoints. A chain costs about what a few dozen elements cost to load, so
 * the common case (a ClusterIP, perhaps a NodePort or one load-balancer IP) adds no chain per
 * Service.
 *
 * <p>Service ports with ClientIP session affinity are the other exception: an element cannot
 * remember a client's endpoint, so each such port gets a {@code sticky-<hash>} chain per endpoint
 * list and an {@code affinity-<hash>} chain plus same-named timeout set per endpoint, shared by the
 * port's Cluster and Local lists.
 *
 * <p>Connection counts are elements of sets declared with {@code counter}: the node-wide counts in
 * {@code counters} (one element per locality, one for connections without endpoints, counted by a
 * lookup of the element's constant key), and per counted Service port one element per address it
 * holds in each {@code service-<locality>} set. The metrics list these sets alone: nft 1.0.6 reads
 * the whole table to list a named counter.
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>eTP=Local with usable endpoints elsewhere but none on this node: as upstream, the external
 *       address gets {@code external-local} in {@code service-ips} (so pods and the host still
 *       short-circuit to the Cluster list) and a {@code drop} element in {@code
 *       no-endpoint-services}; external clients fall through {@code external-local} (no {@code
 *       local-dispatch} element), are not DNATed, and the post-DNAT filter chains drop them. No
 *       catch-all drop rule in the nat chain.
 *   <li>Who owns an address key two Service ports claim is decided before rendering, by {@link
 *       dev.proxima.proxy.plan.AddressOwners}, the same way in both modes. The renderer keeps a
 *       last line of defence: a key an earlier Service port (in ServicePortName order) already
 *       holds is skipped with a warning, because the kernel fails the whole transaction on two
 *       values for one key.
 *   <li>Addresses are printed canonically; invalid ones, or ones of the other family, are skipped
 *       with a warning rather than failing the transaction. Source ranges fail closed: a port whose
 *       ranges are all unusable still gets its firewall entry, with nothing allowed.
 *   <li>Nested CIDRs are reduced to the outermost: nft rejects nested ranges in interval sets.
 *   <li>The script {@code render} prints replaces the whole table, affinity sets empty. The live
 *       proxy's full syncs (the first after a start too) build every object beside the table's,
 *       switch the base chains to them and delete the old ones, keeping the affinity sets still
 *       wanted and the counting sets; partial syncs load only the delta.
 * </ul>
 */
package dev.proxima.proxy.render.nft;
