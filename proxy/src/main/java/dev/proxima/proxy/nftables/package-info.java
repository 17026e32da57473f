/** The typed objects of table {@code proxima} and the transactions on them: no I/O, no Service. */
package dev.proxima.proxy.nftables;
