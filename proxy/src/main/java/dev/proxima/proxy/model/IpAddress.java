package dev.proxima.proxy.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An IP address parsed the way the API server parses the fields the proxy reads, printed one way
 * only. Two spellings of one address ({@code fd00::1}, {@code fd00:0::1}, {@code FD00::1}) are one
 * value, so nothing downstream de-duplicates or keys on raw API strings.
 *
 * <p>Parsing is lenient where the API server is (Go's legacy {@code ParseIPSloppy}): surrounding
 * white space, the non-breaking space included, is trimmed, and IPv4 octets may have leading zeros,
 * read as decimal ({@code 010.0.0.1} is 10.0.0.1). Names are never resolved: {@code
 * InetAddress.getByName} resolves anything that is not a literal, which a proxy must never do on
 * input from the API.
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
    var bytes = bytes(trimmed, true);
    return bytes == null ? null : new IpAddress(bytes, trimmed);
  }

  /**
   * 4 or 16 bytes, or null when it is not an IP literal. Strict, for the proxy's own options:
   * leading zeros in IPv4 octets are rejected, because tools disagree on whether they mean octal.
   */
  public static byte[] literalBytes(String ip) {
    return bytes(ip, false);
  }

  /**
   * With {@code leadingZeros}, IPv4 octets may have them, read as decimal: the API server accepts
   * them in the fields the proxy reads (Go's {@code ParseIPSloppy}), so the proxy must understand
   * them rather than drop what the cluster accepted.
   */
  static byte[] bytes(String ip, boolean leadingZeros) {
    if (ip == null || ip.isEmpty()) {
      return null;
    }
    return ip.indexOf(':') >= 0 ? parseIpv6(ip, leadingZeros) : parseIpv4(ip, leadingZeros);
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
    boolean allZeroButLast = Arrays.equals(bytes, 0, 15, new byte[15], 0, 15);
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
    boolean mapped =
        Arrays.equals(bytes, 0, 10, new byte[10], 0, 10) && bytes[10] == -1 && bytes[11] == -1;
    return mapped ? Arrays.copyOfRange(bytes, 12, 16) : null;
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

  /**
   * Scans the octets in place: every endpoint address of every plan passes here, and splitting the
   * string allocated a list, an array and a string per octet for each.
   */
  private static byte[] parseIpv4(String ip, boolean leadingZeros) {
    byte[] bytes = new byte[4];
    int octets = 0;
    int start = 0;
    for (int end = 0; end <= ip.length(); end++) {
      if (end < ip.length() && ip.charAt(end) != '.') {
        continue;
      }
      if (octets == 4) {
        return null;
      }
      int value = asciiNumber(ip, start, end, 10, leadingZeros ? 8 : 3);
      if (value < 0
          || value > 255
          || (!leadingZeros && end - start > 1 && ip.charAt(start) == '0')) {
        return null;
      }
      bytes[octets++] = (byte) value;
      start = end + 1;
    }
    return octets == 4 ? bytes : null;
  }

  private static byte[] parseIpv6(String ip, boolean leadingZeros) {
    int gap = ip.indexOf("::");
    if (gap >= 0 && ip.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    List<Integer> head = new ArrayList<>();
    List<Integer> tail = new ArrayList<>();
    if (gap >= 0) {
      if (!groups(ip.substring(0, gap), head, leadingZeros)
          || !groups(ip.substring(gap + 2), tail, leadingZeros)) {
        return null;
      }
    } else if (!groups(ip, head, leadingZeros)) {
      return null;
    }
    int total = head.size() + tail.size();
    if (gap < 0 ? total != 8 : total > 7) {
      return null;
    }
    byte[] bytes = new byte[16];
    for (int i = 0; i < head.size(); i++) {
      put(bytes, i, head.get(i));
    }
    for (int i = 0; i < tail.size(); i++) {
      put(bytes, 8 - tail.size() + i, tail.get(i));
    }
    return bytes;
  }

  private static void put(byte[] bytes, int group, int value) {
    bytes[2 * group] = (byte) (value >>> 8);
    bytes[2 * group + 1] = (byte) value;
  }

  /** Appends the 16-bit groups of a colon-separated run (a trailing dotted quad counts as two). */
  private static boolean groups(String run, List<Integer> out, boolean leadingZeros) {
    if (run.isEmpty()) {
      return true;
    }
    String[] parts = run.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (i == parts.length - 1 && part.indexOf('.') >= 0) {
        byte[] v4 = parseIpv4(part, leadingZeros);
        if (v4 == null) {
          return false;
        }
        out.add(((v4[0] & 0xff) << 8) | (v4[1] & 0xff));
        out.add(((v4[2] & 0xff) << 8) | (v4[3] & 0xff));
        continue;
      }
      int value = asciiNumber(part, 0, part.length(), 16, 4);
      if (value < 0) {
        return false;
      }
      out.add(value);
    }
    return true;
  }

  /**
   * The number in ASCII digits only, or -1 when the range is empty, longer than maxDigits or holds
   * anything else: Java's own parsers also accept other scripts' digits and signs, which no API
   * field the proxy reads may carry.
   */
  static int asciiNumber(String text, int from, int to, int radix, int maxDigits) {
    if (from == to || to - from > maxDigits) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      int digit = c < 0x80 ? Character.digit(c, radix) : -1;
      if (digit < 0) {
        return -1;
      }
      value = value * radix + digit;
    }
    return value;
  }
}
