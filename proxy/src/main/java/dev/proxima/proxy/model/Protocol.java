package dev.proxima.proxy.model;

public enum Protocol {
  TCP,
  UDP,
  SCTP;

  /** The lowercase spelling nftables and iptables use. */
  public String lower() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
