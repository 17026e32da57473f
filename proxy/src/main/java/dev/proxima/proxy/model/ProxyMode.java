package dev.proxima.proxy.model;

/**
 * The kernel data plane the proxy programs. Lower case, as operators type it on the command line.
 */
public enum ProxyMode {
  nftables,
  iptables
}
