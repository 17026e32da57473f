package dev.proxima.proxy.selection;

import dev.proxima.proxy.model.Endpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The stable order of endpoint lists: by IP address numerically (every IPv4 address before every
 * IPv6 address), then by port. An IP that is not a literal sorts after all literals, by its text.
 * Endpoints that compare equal keep their input order (the sort is stable).
 *
 * <p>Parsing is done here rather than with {@link java.net.InetAddress}, which may resolve names.
 */
final class EndpointOrder {
  private EndpointOrder() {}

  /** Orders endpoints by IP, then port. */
  static final Comparator<Endpoint> BY_ADDRESS =
      Comparator.comparing((Endpoint ep) -> ipKey(ep.ip()), EndpointOrder::compareIpKeys)
          .thenComparingInt(Endpoint::port);

  /** A new list with the endpoints in {@link #BY_ADDRESS} order. */
  static List<Endpoint> sorted(Collection<Endpoint> endpoints) {
    var list = new ArrayList<>(endpoints);
    list.sort(BY_ADDRESS);
    return list;
  }

  /** A parsed address (4 or 16 bytes), or the raw text when it is not an IP literal. */
  private record IpKey(byte[] bytes, String text) {}

  private static IpKey ipKey(String ip) {
    return new IpKey(parse(ip), ip);
  }

  private static int compareIpKeys(IpKey a, IpKey b) {
    if (a.bytes() == null || b.bytes() == null) {
      if (a.bytes() != null) {
        return -1;
      }
      if (b.bytes() != null) {
        return 1;
      }
      return a.text().compareTo(b.text());
    }
    if (a.bytes().length != b.bytes().length) {
      return Integer.compare(a.bytes().length, b.bytes().length);
    }
    return Arrays.compareUnsigned(a.bytes(), b.bytes());
  }

  /** The address bytes of an IPv4 or IPv6 literal, or {@code null}. */
  static byte[] parse(String ip) {
    if (ip.indexOf(':') >= 0) {
      return parseIpv6(ip);
    }
    return parseIpv4(ip);
  }

  private static byte[] parseIpv4(String ip) {
    String[] parts = ip.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] bytes = new byte[4];
    for (int i = 0; i < 4; i++) {
      int value = parseNumber(parts[i], 10, 3);
      if (value < 0 || value > 255) {
        return null;
      }
      bytes[i] = (byte) value;
    }
    return bytes;
  }

  private static byte[] parseIpv6(String ip) {
    int percent = ip.indexOf('%');
    if (percent >= 0) {
      ip = ip.substring(0, percent);
    }
    int gap = ip.indexOf("::");
    if (gap >= 0 && ip.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    List<Integer> head = new ArrayList<>();
    List<Integer> tail = new ArrayList<>();
    if (gap >= 0) {
      if (!groups(ip.substring(0, gap), head) || !groups(ip.substring(gap + 2), tail)) {
        return null;
      }
    } else if (!groups(ip, head)) {
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
  private static boolean groups(String run, List<Integer> out) {
    if (run.isEmpty()) {
      return true;
    }
    String[] parts = run.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (i == parts.length - 1 && part.indexOf('.') >= 0) {
        byte[] v4 = parseIpv4(part);
        if (v4 == null) {
          return false;
        }
        out.add(((v4[0] & 0xff) << 8) | (v4[1] & 0xff));
        out.add(((v4[2] & 0xff) << 8) | (v4[3] & 0xff));
        continue;
      }
      int value = parseNumber(part, 16, 4);
      if (value < 0) {
        return false;
      }
      out.add(value);
    }
    return true;
  }

  /** A non-negative number of at most {@code maxDigits} digits, or -1. */
  private static int parseNumber(String digits, int radix, int maxDigits) {
    if (digits.isEmpty() || digits.length() > maxDigits) {
      return -1;
    }
    int value = 0;
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      // ASCII only: Character.digit would also accept other scripts' digits.
      int digit = c < 0x80 ? Character.digit(c, radix) : -1;
      if (digit < 0) {
        return -1;
      }
      value = value * radix + digit;
    }
    return value;
  }
}
