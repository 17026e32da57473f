package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import java.util.Optional;

/**
 * Parses the ruleset's addresses and CIDRs, never resolving names: nft keys compare by value, so
 * {@code fd00::01} and {@code fd00::1} must not become two clashing elements.
 */
final class NftAddresses {
  private NftAddresses() {}

  static Optional<byte[]> parse(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(IpAddress.literalBytes(text));
  }

  static Optional<String> canonical(String text, IpFamily family) {
    return parse(text).filter(b -> b.length == family.addressBytes()).map(IpAddress::format);
  }

  /** A bare address is a host route. Host bits are cleared, as Go's {@code net.ParseCIDR} does. */
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
    if (slash >= 0 && !lengthText.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty(); // Cidr.parse is as lenient as the API server; this is not
    }
    return Optional.ofNullable(
        Cidr.parse(slash < 0 ? trimmed + "/" + family.addressBytes() * 8 : trimmed));
  }
}
