/**
 * The typed vocabulary of table {@code proxima}: its chains, rules, sets, maps and elements, the
 * transactions of operations on them ({@link dev.proxima.proxy.nftables.NftTransaction}), written
 * as the text {@code nft -f} reads, and the table as the kernel lists it ({@link
 * dev.proxima.proxy.nftables.KernelTable}). No I/O and no Service: the renderer builds these, the
 * kernel adapter loads and reads them.
 */
package dev.proxima.proxy.nftables;
