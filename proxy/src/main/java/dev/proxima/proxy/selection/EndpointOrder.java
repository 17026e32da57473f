package dev.proxima.proxy.selection;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The stable order of endpoint lists: by IP address numerically (every IPv4 address before every
 * IPv6 address), then by port. An IP that is not a literal sorts after all literals, by its text.
 * Endpoints that compare equal keep their input order (the sort is stable).
 */
final class EndpointOrder {
  private EndpointOrder() {}

  static final Comparator<Endpoint> BY_ADDRESS =
      Comparator.comparing((Endpoint ep) -> ipKey(ep.ip()), EndpointOrder::compareIpKeys)
          .thenComparingInt(Endpoint::port);

  static List<Endpoint> sorted(Collection<Endpoint> endpoints) {
    var list = new ArrayList<>(endpoints);
    list.sort(BY_ADDRESS);
    return list;
  }

  /** A parsed address (4 or 16 bytes), or the raw text when it is not an IP literal. */
  private record IpKey(byte[] bytes, String text) {}

  private static IpKey ipKey(String ip) {
    return new IpKey(IpAddress.literalBytes(ip), ip);
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
}
