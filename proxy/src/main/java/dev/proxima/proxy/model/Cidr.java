package dev.proxima.proxy.model;

import java.util.Arrays;
import java.util.List;

/**
 * A network parsed as the API server parses {@code loadBalancerSourceRanges} (white space trimmed,
 * IPv4 leading zeros read as decimal, as Go's {@code ParseCIDRSloppy}), with the host bits cleared
 * and printed canonically: {@code 010.0.0.0/08} becomes {@code 10.0.0.0/8}, the only spelling the
 * rules ever contain.
 */
public record Cidr(IpAddress network, int prefix) {

  /** Null when {@code raw} is not {@code address/length}. */
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
    int prefix = IpLiteral.asciiNumber(trimmed, slash + 1, trimmed.length(), 10, 3);
    if (address == null || prefix < 0) {
      return null;
    }
    var bytes = address.bytes();
    if (prefix > bytes.length * 8) {
      return null;
    }
    return new Cidr(IpAddress.parse(IpAddress.format(mask(bytes, prefix))), prefix);
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] masked = address.clone();
    for (int i = 0; i < masked.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      masked[i] = (byte) (masked[i] & (0xff << (8 - keep)));
    }
    return masked;
  }

  public IpFamily family() {
    return network.family();
  }

  public boolean contains(Cidr other) {
    var mine = network.bytes();
    var theirs = other.network.bytes();
    return mine.length == theirs.length
        && other.prefix >= prefix
        && Arrays.equals(mask(theirs, prefix), mine);
  }

  /** nft interval sets reject nested ranges ("File exists"); see {@link SourceRanges}. */
  public static List<Cidr> outermost(List<Cidr> cidrs) {
    return SourceRanges.outermost(cidrs, null);
  }

  @Override
  public String toString() {
    return network + "/" + prefix;
  }
}
