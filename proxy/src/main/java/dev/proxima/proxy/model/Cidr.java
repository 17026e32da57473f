package dev.proxima.proxy.model;

/**
 * A network parsed as the API server parses {@code loadBalancerSourceRanges} (white space trimmed,
 * IPv4 leading zeros read as decimal, as Go's {@code ParseCIDRSloppy}), with the host bits cleared
 * and printed canonically: {@code 010.0.0.0/08} becomes {@code 10.0.0.0/8}, the only spelling the
 * rules ever contain.
 */
public record Cidr(IpAddress network, int prefix) {

  /** The network, or null when {@code raw} is not {@code address/length}. */
  public static Cidr parse(String raw) {
    var trimmed = IpAddress.trim(raw);
    if (trimmed == null) {
      return null;
    }
    int slash = trimmed.indexOf('/');
    if (slash < 0) {
      return null;
    }
    var address = IpAddress.parse(trimmed.substring(0, slash));
    var lengthText = trimmed.substring(slash + 1);
    if (address == null || lengthText.isEmpty() || lengthText.length() > 3) {
      return null;
    }
    int prefix = 0;
    for (int i = 0; i < lengthText.length(); i++) {
      char c = lengthText.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
      prefix = prefix * 10 + (c - '0');
    }
    var bytes = address.bytes();
    if (prefix > bytes.length * 8) {
      return null;
    }
    for (int i = 0; i < bytes.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      bytes[i] = (byte) (bytes[i] & (0xff << (8 - keep)));
    }
    return new Cidr(IpAddress.parse(IpAddress.format(bytes)), prefix);
  }

  public IpFamily family() {
    return network.family();
  }

  @Override
  public String toString() {
    return network + "/" + prefix;
  }
}
