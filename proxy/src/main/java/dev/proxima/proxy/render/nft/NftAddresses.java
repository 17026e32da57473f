package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.IpLiteral;
import java.util.List;
import java.util.Optional;

/**
 * Parses and prints the addresses and CIDRs the ruleset contains, without ever resolving names
 * (unlike {@code InetAddress.getByName}, which falls back to DNS for anything it cannot parse).
 * Parsing follows {@code dev.proxima.proxy.model.IpLiteral}: IPv4 octets with leading zeros are
 * rejected, as Kubernetes validation does.
 *
 * <p>Everything the renderer writes goes through here first, for two reasons: nft keys compare by
 * value, so {@code fd00::01} and {@code fd00::1} must not become two "different" elements that the
 * kernel then rejects as a clash, and one malformed address must not fail the whole {@code nft -f}
 * transaction.
 */
final class NftAddresses {
  private NftAddresses() {}

  /** The address bytes (4 or 16) of an IPv4 or IPv6 literal, or empty if it is not one. */
  static Optional<byte[]> parse(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(IpLiteral.bytes(text));
  }

  /** The canonical text of an address: dotted quad, or RFC 5952 for IPv6. */
  static String format(byte[] address) {
    return IpAddress.format(address);
  }

  /** The canonical text of {@code text} if it is an address of {@code family}. */
  static Optional<String> canonical(String text, IpFamily family) {
    return parse(text).filter(b -> b.length == family.addressBytes()).map(NftAddresses::format);
  }

  /**
   * A CIDR of {@code family}: {@code addr/len}, or a bare address taken as a host route. Host bits
   * are cleared, as Go's {@code net.ParseCIDR} does for kube-proxy.
   */
  static Optional<Cidr> parseCidr(String text, IpFamily family) {
    if (text == null) {
      return Optional.empty();
    }
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    String addressText = slash < 0 ? trimmed : trimmed.substring(0, slash);
    if (canonical(addressText, family).isEmpty()) {
      return Optional.empty();
    }
    String lengthText = slash < 0 ? "" : trimmed.substring(slash + 1);
    if (slash >= 0 && !allDecimal(lengthText)) {
      return Optional.empty(); // Cidr.parse is as lenient as the API server; this is not
    }
    return Optional.ofNullable(
        Cidr.parse(slash < 0 ? trimmed + "/" + family.addressBytes() * 8 : trimmed));
  }

  /** The CIDRs that are not inside another one of the list; see {@link Cidr#outermost}. */
  static List<Cidr> outermost(List<Cidr> cidrs) {
    return Cidr.outermost(cidrs);
  }

  /** Colon-separated hex groups of 1 to 4 digits; an empty string is no groups. */
  private static boolean allDecimal(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
