package dev.proxima.proxy.model;

/**
 * The IP family a proxier programs; dual-stack nodes run one of each. The one family type of the
 * proxy: the translators spell it for their tool ({@code NftSyntax}: {@code ip}/{@code ip6}; {@code
 * IptablesSyntax}: {@code iptables}/{@code ip6tables}).
 */
public enum IpFamily {
  IPV4("IPv4", 4),
  IPV6("IPv6", 16);

  private final String apiName;
  private final int addressBytes;

  IpFamily(String apiName, int addressBytes) {
    this.apiName = apiName;
    this.addressBytes = addressBytes;
  }

  public int addressBytes() {
    return addressBytes;
  }

  /** The loopback range, which never accepts NodePorts: {@code 127.0.0.0/8} or {@code ::1/128}. */
  public String loopback() {
    return this == IPV6 ? "::1/128" : "127.0.0.0/8";
  }

  /** The spelling the API uses in spec.ipFamilies and EndpointSlice addressType. */
  public String apiName() {
    return apiName;
  }

  /** The family of a literal address, or null when it is not a valid IP literal. */
  public static IpFamily of(String address) {
    return IpLiteral.familyOf(address);
  }
}
