package dev.proxima.controller.reconcile;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Arrays;
import java.util.List;

/**
 * What the {@link OverwriteGuard} keeps of a slice: per endpoint, a 64-bit digest of its address
 * and a 32-bit digest of its hints, sorted by address digest (12 bytes an endpoint). An address
 * that appears twice in one slice is left out, as is an endpoint without an address: the guard
 * cannot tell which of the two it wrote. A collision can only hide one revert; it never makes one
 * up.
 */
final class HintDigest {
  static final long SEED = 0xcbf29ce484222325L;
  private static final long PRIME = 0x100000001b3L;

  private final long[] addresses;
  private final int[] hints;

  private HintDigest(long[] addresses, int[] hints) {
    this.addresses = addresses;
    this.hints = hints;
  }

  static HintDigest of(EndpointSlice slice) {
    List<Endpoint> endpoints = slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
    var pairs = new long[endpoints.size()][];
    int n = 0;
    for (var endpoint : endpoints) {
      if (endpoint == null
          || endpoint.getAddresses() == null
          || endpoint.getAddresses().isEmpty()) {
        continue;
      }
      long address = hash(SEED, endpoint.getAddresses().get(0));
      pairs[n++] = new long[] {mix(address), hintsOf(endpoint)};
    }
    var sorted = Arrays.copyOf(pairs, n);
    Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
    var addresses = new long[n];
    var hints = new int[n];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      boolean twice =
          (i > 0 && sorted[i - 1][0] == sorted[i][0])
              || (i + 1 < n && sorted[i + 1][0] == sorted[i][0]);
      if (!twice) {
        addresses[kept] = sorted[i][0];
        hints[kept++] = (int) sorted[i][1];
      }
    }
    return new HintDigest(Arrays.copyOf(addresses, kept), Arrays.copyOf(hints, kept));
  }

  /**
   * Whether {@code now} gives other hints to an endpoint this digest holds: endpoints that came or
   * went do not count, so a slice rewritten for pod churn whose remaining endpoints lost the hints
   * written is still a change of those hints. Linear in the two slices.
   */
  boolean hintsChangedIn(HintDigest now) {
    int i = 0;
    int j = 0;
    while (i < addresses.length && j < now.addresses.length) {
      int order = Long.compare(addresses[i], now.addresses[j]);
      if (order < 0) {
        i++;
      } else if (order > 0) {
        j++;
      } else {
        if (hints[i] != now.hints[j]) {
          return true;
        }
        i++;
        j++;
      }
    }
    return false;
  }

  /** How many endpoints this digest holds. */
  int size() {
    return addresses.length;
  }

  private static int hintsOf(Endpoint endpoint) {
    long hints = SEED;
    var given = endpoint.getHints();
    if (given == null) {
      hints = hash(hints, "\u0000none");
    } else {
      hints = hash(hints, "\u0000zones");
      if (given.getForZones() != null) {
        for (var zone : given.getForZones()) {
          hints = hash(hints, zone == null ? "\u0001" : "\u0002" + zone.getName());
        }
      }
      hints = hash(hints, "\u0000nodes");
      if (given.getForNodes() != null) {
        for (var node : given.getForNodes()) {
          hints = hash(hints, node == null ? "\u0001" : "\u0002" + node.getName());
        }
      }
    }
    long mixed = mix(hints);
    return (int) (mixed ^ (mixed >>> 32));
  }

  /** FNV-1a over the characters of {@code text}, continuing from {@code hash}. */
  static long hash(long hash, String text) {
    var value = String.valueOf(text);
    for (int i = 0; i < value.length(); i++) {
      hash ^= value.charAt(i);
      hash *= PRIME;
    }
    return hash;
  }

  /** A finaliser (SplitMix64's), so that nearby inputs end far apart. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
