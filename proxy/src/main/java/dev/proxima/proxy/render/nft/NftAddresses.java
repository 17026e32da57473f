package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpLiteral;
import java.util.ArrayList;
import java.util.Arrays;
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
  static Optional<String> canonical(String text, NftFamily family) {
    return parse(text).filter(b -> b.length == family.addressBytes()).map(NftAddresses::format);
  }

  /**
   * A CIDR of {@code family}: {@code addr/len}, or a bare address taken as a host route. Host bits
   * are cleared, as Go's {@code net.ParseCIDR} does for kube-proxy.
   */
  static Optional<Cidr> parseCidr(String text, NftFamily family) {
    if (text == null) {
      return Optional.empty();
    }
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    String addressText = slash < 0 ? trimmed : trimmed.substring(0, slash);
    Optional<byte[]> address = parse(addressText).filter(b -> b.length == family.addressBytes());
    if (address.isEmpty()) {
      return Optional.empty();
    }
    int bits = family.addressBytes() * 8;
    int prefix = bits;
    if (slash >= 0) {
      String lengthText = trimmed.substring(slash + 1);
      if (lengthText.isEmpty() || lengthText.length() > 3 || !allDecimal(lengthText)) {
        return Optional.empty();
      }
      prefix = Integer.parseInt(lengthText);
      if (prefix > bits) {
        return Optional.empty();
      }
    }
    return Optional.of(new Cidr(mask(address.get(), prefix), prefix));
  }

  /**
   * The CIDRs that are not inside another one of the list, in their first-seen order, without
   * duplicates. nft interval sets reject nested ranges ("File exists"), and for matching a source
   * the inner range adds nothing.
   */
  static List<Cidr> outermost(List<Cidr> cidrs) {
    List<Cidr> result = new ArrayList<>();
    for (int i = 0; i < cidrs.size(); i++) {
      Cidr candidate = cidrs.get(i);
      boolean covered = false;
      for (int j = 0; j < cidrs.size() && !covered; j++) {
        Cidr other = cidrs.get(j);
        if (i != j && other.contains(candidate) && (!candidate.contains(other) || j < i)) {
          covered = true; // strictly inside another, or an equal one came first
        }
      }
      if (!covered) {
        result.add(candidate);
      }
    }
    return result;
  }

  /** A network: address with host bits cleared and prefix length. */
  record Cidr(byte[] address, int prefix) {
    boolean contains(Cidr other) {
      return other.address.length == address.length
          && other.prefix >= prefix
          && Arrays.equals(mask(other.address, prefix), address);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Cidr c && c.prefix == prefix && Arrays.equals(c.address, address);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(address) * 31 + prefix;
    }

    @Override
    public String toString() {
      return format(address) + "/" + prefix;
    }
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] masked = address.clone();
    for (int i = 0; i < masked.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      masked[i] = (byte) (masked[i] & (0xff << (8 - keep)));
    }
    return masked;
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
