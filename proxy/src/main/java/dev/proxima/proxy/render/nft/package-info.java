/**
 * The nftables data plane's rendering, pure: desired state in, {@code nft -f} transactions for
 * table {@code proxima} of one family out. Semantics are kube-proxy's nftables mode; per-Service
 * state lives in set and map elements, so the number of chains does not grow with the Services:
 * only session affinity and each distinct list of load-balancer source ranges add chains.
 *
 * <ul>
 *   <li>{@link RulesetAssembler}: the entry point; one family's table, kept between syncs.
 *   <li>{@link FixedLayout}: the table without any Service port ({@link FixedTable}).
 *   <li>{@link RenderPass}: one Service port's routing decision as a {@link ServiceFragment};
 *       {@link AffinityChains} for ClientIP affinity.
 *   <li>{@link TableModel}: the fragments, reference-counted, and who holds contested map keys.
 *   <li>{@link PartialSync}: the delta transaction; {@link LoadedObjects}: what the kernel holds
 *       and what went stale.
 *   <li>{@link FullSyncBatches}: a full sync in bounded transactions, beside the loaded objects;
 *       {@link GenerationSwitch}: the switch of the hooked chains to them.
 *   <li>{@link dev.proxima.proxy.nftables.NftText} and {@link
 *       dev.proxima.proxy.nftables.NftTransaction}: the only place nft text is written.
 * </ul>
 *
 * <p>A key two Service ports claim goes to the earlier in ServicePortName order, with a warning:
 * the kernel fails the whole transaction on two values for one key. Invalid addresses are skipped
 * with a warning for the same reason, and nested CIDRs are reduced to the outermost, since nft
 * rejects nested ranges in interval sets.
 */
package dev.proxima.proxy.render.nft;
