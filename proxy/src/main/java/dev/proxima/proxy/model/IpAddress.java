package dev.proxima.proxy.model;

import java.util.Arrays;

/**
 * An IP address parsed the way the API server parses the fields the proxy reads, printed one way
 * only. Two spellings of one address ({@code fd00::1}, {@code fd00:0::1}, {@code FD00::1}) are one
 * value, so nothing downstream de-duplicates or keys on raw API strings.
 *
 * <p>Parsing is lenient where the API server is (Go's legacy {@code ParseIPSloppy}): surrounding
 * white space, the non-breaking space included, is trimmed, and IPv4 octets may have leading zeros,
 * read as decimal ({@code 010.0.0.1} is 10.0.0.1). Names are never resolved.
 */
public final class IpAddress {
  private final byte[] bytes;
  private final String text;

  private IpAddress(byte[] bytes, String raw) {
    this.bytes = bytes;
    var canonical = format(bytes);
    // Nearly every address from the API is canonical already: keep that string, which the cached
    // object holds anyway, rather than a copy per endpoint (100,000 endpoints, about 5 MiB).
    this.text = canonical.equals(raw) ? raw : canonical;
  }

  /** Null when {@code raw} is not an IP literal. */
  public static IpAddress parse(String raw) {
    var trimmed = trim(raw);
    if (trimmed == null || trimmed.isEmpty()) {
      return null;
    }
    var bytes = IpLiteral.lenientBytes(trimmed);
    return bytes == null ? null : new IpAddress(bytes, trimmed);
  }

  public IpFamily family() {
    return bytes.length == 4 ? IpFamily.IPV4 : IpFamily.IPV6;
  }

  byte[] bytes() {
    return bytes.clone();
  }

  /**
   * Why this address must never be a DNAT target, an externalIP or a load-balancer IP, or null when
   * it may be. The API server rejects endpoint addresses that are unspecified, loopback or
   * link-local (the cloud metadata address 169.254.169.254 among them) and link-local multicast;
   * broadcast and every multicast address are refused here as well, because no pod answers on them.
   * An IPv4-mapped IPv6 address is judged by the IPv4 address inside it.
   */
  public String special() {
    byte[] v4 = bytes.length == 4 ? bytes : mappedIpv4();
    if (v4 != null) {
      int first = v4[0] & 0xff;
      int second = v4[1] & 0xff;
      if (first == 0) {
        return "unspecified"; // 0.0.0.0/8: "this network", never a destination
      }
      if (first == 127) {
        return "loopback";
      }
      if (first == 169 && second == 254) {
        return "link-local";
      }
      if (first >= 224 && first <= 239) {
        return "multicast";
      }
      if (Arrays.equals(v4, new byte[] {-1, -1, -1, -1})) {
        return "broadcast";
      }
      return null;
    }
    boolean allZeroButLast = true;
    for (int i = 0; i < 15; i++) {
      allZeroButLast &= bytes[i] == 0;
    }
    if (allZeroButLast && bytes[15] == 0) {
      return "unspecified";
    }
    if (allZeroButLast && bytes[15] == 1) {
      return "loopback";
    }
    if ((bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xc0) == 0x80) {
      return "link-local";
    }
    if ((bytes[0] & 0xff) == 0xff) {
      return "multicast";
    }
    return null;
  }

  /** The IPv4 address inside {@code ::ffff:a.b.c.d}, or null. */
  private byte[] mappedIpv4() {
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return null;
      }
    }
    if (bytes[10] != -1 || bytes[11] != -1) {
      return null;
    }
    return Arrays.copyOfRange(bytes, 12, 16);
  }

  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof IpAddress address && Arrays.equals(bytes, address.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /**
   * {@code raw} without the white space Go's {@code strings.TrimSpace} removes, which the API
   * server applies before validating: ASCII space and controls, NEL, the non-breaking space and the
   * other Unicode spaces. Null stays null.
   */
  public static String trim(String raw) {
    if (raw == null) {
      return null;
    }
    int start = 0;
    int end = raw.length();
    while (start < end && isSpace(raw.charAt(start))) {
      start++;
    }
    while (end > start && isSpace(raw.charAt(end - 1))) {
      end--;
    }
    return raw.substring(start, end);
  }

  private static boolean isSpace(char c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
  }

  /** Dotted decimal, or RFC 5952 for IPv6 (lower case, longest zero run compressed). */
  public static String format(byte[] address) {
    return address.length == 4 ? formatV4(address) : formatV6(address);
  }

  private static String formatV4(byte[] b) {
    return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
  }

  private static String formatV6(byte[] b) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not compressed (RFC 5952 4.2.2)
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }
}
