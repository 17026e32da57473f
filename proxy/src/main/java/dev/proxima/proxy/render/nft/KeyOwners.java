package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftElement;

/**
 * Which Service port holds each key of one map: a key can take only one value, so the first port to
 * claim it keeps it. At 10,000 Services there are over a hundred thousand keys; a {@code HashMap}
 * spends about 50 bytes on each, these arrays about 12 (the element is kept anyway).
 */
final class KeyOwners {
  private NftElement[] elements = new NftElement[8];

  private int[] hashes = new int[8];
  private ServicePortName[] owners = new ServicePortName[8];
  private int size;

  /** Returns the other port holding the key, or null when {@code port} holds it now. */
  ServicePortName claim(NftElement element, ServicePortName port) {
    int hash = element.keyHash();
    int at = positionOf(element, hash);
    if (elements[at] != null) {
      return owners[at].equals(port) ? null : owners[at];
    }
    if (3 * (size + 1) > 2 * elements.length) {
      grow();
      at = positionOf(element, hash);
    }
    elements[at] = element;
    hashes[at] = hash;
    owners[at] = port;
    size++;
    return null;
  }

  ServicePortName holder(NftElement element) {
    return owners[positionOf(element, element.keyHash())];
  }

  void release(NftElement element, ServicePortName port) {
    int at = positionOf(element, element.keyHash());
    if (elements[at] != null && owners[at].equals(port)) {
      removeAt(at);
    }
  }

  private int positionOf(NftElement element, int hash) {
    int mask = elements.length - 1;
    int at = home(hash, mask);
    while (elements[at] != null && !(hashes[at] == hash && elements[at].sameKey(element))) {
      at = (at + 1) & mask;
    }
    return at;
  }

  /** Without tombstones: the entries after the gap that could not sit at home move back into it. */
  private void removeAt(int gap) {
    int mask = elements.length - 1;
    for (int at = (gap + 1) & mask; elements[at] != null; at = (at + 1) & mask) {
      int home = home(hashes[at], mask);
      // The entry may move to the gap unless its home lies cyclically in (gap, at].
      boolean homeAfterGap = gap <= at ? gap < home && home <= at : gap < home || home <= at;
      if (!homeAfterGap) {
        elements[gap] = elements[at];
        hashes[gap] = hashes[at];
        owners[gap] = owners[at];
        gap = at;
      }
    }
    elements[gap] = null;
    owners[gap] = null;
    size--;
  }

  private void grow() {
    var oldElements = elements;
    var oldHashes = hashes;
    var oldOwners = owners;
    elements = new NftElement[oldElements.length * 2];
    hashes = new int[elements.length];
    owners = new ServicePortName[elements.length];
    int mask = elements.length - 1;
    for (int i = 0; i < oldElements.length; i++) {
      if (oldElements[i] != null) {
        int at = home(oldHashes[i], mask);
        while (elements[at] != null) {
          at = (at + 1) & mask;
        }
        elements[at] = oldElements[i];
        hashes[at] = oldHashes[i];
        owners[at] = oldOwners[i];
      }
    }
  }

  private static int home(int hash, int mask) {
    return ElementUses.position(hash, mask);
  }
}
