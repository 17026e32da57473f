package dev.proxima.proxy.nftables;

import dev.proxima.proxy.model.IpFamily;

/** How nft spells an IP family. */
public final class NftSyntax {
  private NftSyntax() {}

  public static String family(IpFamily family) {
    return family == IpFamily.IPV6 ? "ip6" : "ip";
  }

  public static String addressType(IpFamily family) {
    return family == IpFamily.IPV6 ? "ipv6_addr" : "ipv4_addr";
  }

  public static String saddr(IpFamily family) {
    return family(family) + " saddr";
  }

  public static String daddr(IpFamily family) {
    return family(family) + " daddr";
  }

  /** NodePorts are never matched on it. */
  public static String loopback(IpFamily family) {
    return family == IpFamily.IPV6 ? "::1" : "127.0.0.0/8";
  }

  /** {@code 10.0.0.1:80} or {@code [fd00::1]:80}. */
  public static String addressPort(IpFamily family, String address, int port) {
    return family == IpFamily.IPV6 ? "[" + address + "]:" + port : address + ":" + port;
  }
}
