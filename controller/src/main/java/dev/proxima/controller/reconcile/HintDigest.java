package dev.proxima.controller.reconcile;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * Two 64-bit digests of a slice: of its endpoints' addresses, and of each address with its hints.
 * Both are sums of per-endpoint hashes, so the order of the endpoints does not matter. A collision
 * can only hide one revert from the {@link OverwriteGuard}; it never makes one up.
 */
record HintDigest(long addresses, long hints) {
  static final long SEED = 0xcbf29ce484222325L;
  private static final long PRIME = 0x100000001b3L;

  static HintDigest of(EndpointSlice slice) {
    long addresses = 0;
    long hints = 0;
    List<Endpoint> endpoints = slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
    for (var endpoint : endpoints) {
      if (endpoint == null
          || endpoint.getAddresses() == null
          || endpoint.getAddresses().isEmpty()) {
        continue;
      }
      long address = hash(SEED, endpoint.getAddresses().get(0));
      addresses += mix(address);
      long withHints = address;
      var given = endpoint.getHints();
      if (given == null) {
        withHints = hash(withHints, "\u0000none");
      } else {
        withHints = hash(withHints, "\u0000zones");
        if (given.getForZones() != null) {
          for (var zone : given.getForZones()) {
            withHints = hash(withHints, zone == null ? "\u0001" : "\u0002" + zone.getName());
          }
        }
        withHints = hash(withHints, "\u0000nodes");
        if (given.getForNodes() != null) {
          for (var node : given.getForNodes()) {
            withHints = hash(withHints, node == null ? "\u0001" : "\u0002" + node.getName());
          }
        }
      }
      hints += mix(withHints);
    }
    return new HintDigest(addresses, hints);
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

  /** A finaliser (SplitMix64's), so that summing per-endpoint hashes keeps them apart. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
