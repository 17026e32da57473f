/**
 * The nftables data plane's rendering, pure: desired state in, {@code nft -f} transactions for
 * table {@code proxima} of one family out. Semantics are kube-proxy's nftables mode; per-Service
 * state lives in set and map elements, so the number of chains does not grow with the Services:
 * only session affinity and each distinct list of load-balancer source ranges add chains. {@link
 * RulesetAssembler} is the entry point; docs/architecture.md gives each class's part.
 *
 * <p>A key two Service ports claim goes to the earlier in ServicePortName order, with a warning:
 * the kernel fails the whole transaction on two values for one key. Invalid addresses are skipped
 * with a warning for the same reason, and nested CIDRs are reduced to the outermost, since nft
 * rejects nested ranges in interval sets.
 */
package dev.proxima.proxy.render.nft;
