package dev.proxima.proxy.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses IP address and CIDR literals without ever touching DNS: {@code InetAddress.getByName}
 * resolves anything that is not a literal, which a proxy must never do on input from the API.
 * {@link #bytes} is strict, for the proxy's own options: leading zeros in IPv4 octets are rejected,
 * because tools disagree on whether they mean octal. Input from the API goes through {@link
 * IpAddress}, which reads them as decimal, as the API server does.
 */
public final class IpLiteral {
  private IpLiteral() {}

  /** 4 or 16 bytes, or null when it is not an IP literal. */
  public static byte[] bytes(String ip) {
    if (ip == null || ip.isEmpty()) {
      return null;
    }
    return ip.indexOf(':') >= 0 ? parseIpv6(ip, false) : parseIpv4(ip, false);
  }

  /**
   * As {@link #bytes}, but IPv4 octets may have leading zeros, read as decimal: the API server
   * accepts them in the fields the proxy reads (Go's {@code ParseIPSloppy}), so the proxy must
   * understand them rather than drop what the cluster accepted.
   */
  static byte[] lenientBytes(String ip) {
    if (ip == null || ip.isEmpty()) {
      return null;
    }
    return ip.indexOf(':') >= 0 ? parseIpv6(ip, true) : parseIpv4(ip, true);
  }

  /** Null when it is not a CIDR. */
  public static IpFamily familyOfCidr(String cidr) {
    return prefixLength(cidr) < 0 ? null : IpFamily.of(cidr.substring(0, cidr.indexOf('/')));
  }

  /** False when either is malformed or families differ. */
  public static boolean contains(String cidr, String ip) {
    int length = prefixLength(cidr);
    if (length < 0) {
      return false;
    }
    var network = bytes(cidr.substring(0, cidr.indexOf('/')));
    var address = bytes(ip);
    if (address == null || address.length != network.length) {
      return false;
    }
    for (int bit = 0; bit < length; bit++) {
      int mask = 0x80 >>> (bit % 8);
      if ((network[bit / 8] & mask) != (address[bit / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  private static int prefixLength(String cidr) {
    if (cidr == null) {
      return -1;
    }
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      return -1;
    }
    var network = bytes(cidr.substring(0, slash));
    int length = asciiNumber(cidr, slash + 1, cidr.length(), 10, 3);
    if (network == null || length < 0 || length > network.length * 8) {
      return -1;
    }
    return length;
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
