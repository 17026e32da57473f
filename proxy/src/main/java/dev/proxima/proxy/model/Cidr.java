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
    return of(IpAddress.trim(raw), true);
  }

  private static Cidr of(String text, boolean lenient) {
    int slash = text == null ? -1 : text.indexOf('/');
    if (slash < 0) {
      return null;
    }
    var address = text.substring(0, slash);
    var bytes = IpAddress.bytes(lenient ? IpAddress.trim(address) : address, lenient);
    int prefix = IpAddress.asciiNumber(text, slash + 1, text.length(), 10, 3);
    if (bytes == null || prefix < 0 || prefix > bytes.length * 8) {
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

  /**
   * Null when it is not a CIDR, read strictly as {@link IpAddress#literalBytes} reads addresses.
   */
  public static IpFamily familyOf(String cidr) {
    var range = of(cidr, false);
    return range == null ? null : range.family();
  }

  /** Strict as {@link #familyOf}; false when either is malformed or families differ. */
  public static boolean contains(String cidr, String ip) {
    var range = of(cidr, false);
    var address = IpAddress.literalBytes(ip);
    return range != null
        && address != null
        && Arrays.equals(mask(address, range.prefix), range.network.bytes());
  }

  @Override
  public String toString() {
    return network + "/" + prefix;
  }
}
