package dev.proxima.proxy.model;

/** The IP family a proxier programs; dual-stack nodes run one of each. */
public enum IpFamily {
  IPV4("IPv4"),
  IPV6("IPv6");

  private final String apiName;

  IpFamily(String apiName) {
    this.apiName = apiName;
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
