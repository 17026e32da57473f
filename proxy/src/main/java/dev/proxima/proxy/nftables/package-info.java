/**
 * The typed objects of table {@code proxima} and the transactions on them ({@link
 * dev.proxima.proxy.nftables.NftTransaction}, written as {@code nft -f} reads them): no I/O and no
 * Service. The renderer builds them; the kernel adapter loads and reads them.
 */
package dev.proxima.proxy.nftables;
