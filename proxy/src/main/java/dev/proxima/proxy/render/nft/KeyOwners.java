package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftElement;

/**
 * Which Service port holds each key of one map: a key can take only one value, so the first port to
 * claim it keeps it and later claimants are left out.
 *
 * <p>Every map element has an entry, so at 10,000 Services there are over a hundred thousand. A
 * {@code HashMap<String, ServicePortName>} spends a node on each, about 50 bytes with its table.
 * This table keeps, per entry, the key's hash, the element whose {@link NftElement#key()} it is
 * (which the assembler keeps anyway) and the owner, about 12 bytes.
 */
final class KeyOwners {
  /** The element each entry's key is of; null where the position is free. */
  private NftElement[] elements = new NftElement[8];

  private int[] hashes = new int[8];
  private ServicePortName[] owners = new ServicePortName[8];
  private int size;

  /**
   * Gives the key of {@code element} to {@code port} unless another port holds it; returns that
   * other port, or null when {@code port} holds the key now.
   */
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

  /** The port holding the key of {@code element}, or null. */
  ServicePortName holder(NftElement element) {
    return owners[positionOf(element, element.keyHash())];
  }

  /** Frees the key of {@code element} if {@code port} holds it. */
  void release(NftElement element, ServicePortName port) {
    int at = positionOf(element, element.keyHash());
    if (elements[at] != null && owners[at].equals(port)) {
      removeAt(at);
    }
  }

  /** Where the key of {@code element} is, or the free position where it would go. */
  private int positionOf(NftElement element, int hash) {
    int mask = elements.length - 1;
    int at = home(hash, mask);
    while (elements[at] != null && !(hashes[at] == hash && elements[at].sameKey(element))) {
      at = (at + 1) & mask;
    }
    return at;
  }

  /**
   * Linear probing without tombstones: the entries after the freed position that could not sit
   * where they belong move back into the gap, so every lookup still finds its key before a free
   * position.
   */
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
