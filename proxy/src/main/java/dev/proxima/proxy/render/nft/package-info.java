/**
 * The nftables data plane's rendering, pure: desired state in, {@code nft -f} transactions for
 * table {@code proxima} of one family out, as kube-proxy's nftables mode. Per-Service state lives
 * in set and map elements, so chains do not grow with the Services. {@link RulesetAssembler} is the
 * entry point; docs/architecture.md gives each class's part.
 *
 * <p>The kernel fails a whole transaction on two values for one key, so a key two ports claim goes
 * to the earlier in name order and invalid addresses are skipped, each with a warning.
 */
package dev.proxima.proxy.render.nft;
