package dev.proxima.proxy.render.nft;

/**
 * The nftables family a ruleset is written for. Proxima, like kube-proxy, runs one single-family
 * ruleset per IP family: table {@code ip proxima} for IPv4 and {@code ip6 proxima} for IPv6.
 */
public enum NftFamily {
  IPV4("ip", "ipv4_addr", "127.0.0.0/8", 4),
  IPV6("ip6", "ipv6_addr", "::1", 16);

  private final String nft;
  private final String addressType;
  private final String loopback;
  private final int addressBytes;

  NftFamily(String nft, String addressType, String loopback, int addressBytes) {
    this.nft = nft;
    this.addressType = addressType;
    this.loopback = loopback;
    this.addressBytes = addressBytes;
  }

  /** The nft family keyword, {@code ip} or {@code ip6}; also the header keyword in matches. */
  public String nft() {
    return nft;
  }

  /** The nft data type of an address: {@code ipv4_addr} or {@code ipv6_addr}. */
  public String addressType() {
    return addressType;
  }

  /** {@code ip saddr} or {@code ip6 saddr}. */
  public String saddr() {
    return nft + " saddr";
  }

  /** {@code ip daddr} or {@code ip6 daddr}. */
  public String daddr() {
    return nft + " daddr";
  }

  /** The loopback range NodePorts are never matched on: {@code 127.0.0.0/8} or {@code ::1}. */
  public String loopback() {
    return loopback;
  }

  int addressBytes() {
    return addressBytes;
  }

  /** {@code 10.0.0.1:80} or {@code [fd00::1]:80}, the target of a single-address DNAT. */
  String addressPort(String address, int port) {
    return this == IPV6 ? "[" + address + "]:" + port : address + ":" + port;
  }
}
