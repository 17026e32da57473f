package dev.proxima.proxy.model;

/** Dual-stack nodes run one proxier of each; the translators spell the family for their tool. */
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

  /** Never accepts NodePorts. */
  public String loopback() {
    return this == IPV6 ? "::1/128" : "127.0.0.0/8";
  }

  /** The spelling the API uses in spec.ipFamilies and EndpointSlice addressType. */
  public String apiName() {
    return apiName;
  }

  /** Null when it is not a valid IP literal. */
  public static IpFamily of(String address) {
    var bytes = IpAddress.literalBytes(address);
    return bytes == null ? null : bytes.length == 4 ? IPV4 : IPV6;
  }
}
