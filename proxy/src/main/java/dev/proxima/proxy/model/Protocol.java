package dev.proxima.proxy.model;

public enum Protocol {
  TCP,
  UDP,
  SCTP;

  /** As nftables and iptables spell it. */
  public String lower() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
