package dev.proxima.proxy.nftables;

import dev.proxima.proxy.model.IpFamily;

/**
 * How nft spells an IP family. Proxima, like kube-proxy, runs one single-family ruleset per IP
 * family: table {@code ip proxima} for IPv4 and {@code ip6 proxima} for IPv6.
 */
public final class NftSyntax {
  private NftSyntax() {}

  /** The nft family keyword, {@code ip} or {@code ip6}; also the header keyword in matches. */
  public static String family(IpFamily family) {
    return family == IpFamily.IPV6 ? "ip6" : "ip";
  }

  /** The nft data type of an address: {@code ipv4_addr} or {@code ipv6_addr}. */
  public static String addressType(IpFamily family) {
    return family == IpFamily.IPV6 ? "ipv6_addr" : "ipv4_addr";
  }

  /** {@code ip saddr} or {@code ip6 saddr}. */
  public static String saddr(IpFamily family) {
    return family(family) + " saddr";
  }

  /** {@code ip daddr} or {@code ip6 daddr}. */
  public static String daddr(IpFamily family) {
    return family(family) + " daddr";
  }

  /** The loopback range NodePorts are never matched on: {@code 127.0.0.0/8} or {@code ::1}. */
  public static String loopback(IpFamily family) {
    return family == IpFamily.IPV6 ? "::1" : "127.0.0.0/8";
  }

  /** {@code 10.0.0.1:80} or {@code [fd00::1]:80}, the target of a single-address DNAT. */
  public static String addressPort(IpFamily family, String address, int port) {
    return family == IpFamily.IPV6 ? "[" + address + "]:" + port : address + ":" + port;
  }
}
