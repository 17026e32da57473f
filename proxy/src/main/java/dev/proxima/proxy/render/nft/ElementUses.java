package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftText;
import java.util.Arrays;
import java.util.List;

/**
 * The elements of one set or map and how many Service ports use each, in first-use order (the full
 * script's order): an element that goes and comes back goes to the end.
 *
 * <p>At 10,000 Services this holds hundreds of thousands of elements. A {@code
 * LinkedHashMap<String, Integer>} spends about 48 bytes on each; these arrays plus an
 * open-addressing index about 24. An element that is a key alone is held as its key string, which
 * saves the record's 24 bytes.
 */
final class ElementUses {
  private static final int FREE = -1;

  /** An {@link NftElement}, or the key of an element that is a key alone; null once released. */
  private Object[] elements = new Object[4];

  private int[] counts = new int[4];

  /** So a lookup passes other elements without reading them: each read is a cache miss. */
  private int[] hashes = new int[4];

  private int end;

  private int live;

  /** To size the script before writing it. */
  private long chars;

  /** Slot numbers, linear probing; at most two thirds full, counting released slots. */
  private int[] index = newIndex(8);

  void use(NftElement element) {
    int slot = slotOf(element);
    if (slot != FREE) {
      counts[slot]++;
      return;
    }
    if (end == elements.length) {
      resize(end + Math.max(4, end / 2));
    }
    if (3 * (end + 1) > 2 * index.length) {
      rebuildIndex();
    }
    elements[end] = element.isKeyAlone() ? element.key() : element;
    counts[end] = 1;
    hashes[end] = element.hashCode();
    insertIntoIndex(end);
    end++;
    live++;
    chars += NftText.length(element);
  }

  void release(NftElement element) {
    int slot = slotOf(element);
    if (slot == FREE) {
      return;
    }
    if (--counts[slot] > 0) {
      return;
    }
    chars -= elements[slot] instanceof String key ? key.length() : NftText.length(element(slot));
    elements[slot] = null;
    live--;
    if (end - live > Math.max(live, 16)) {
      compact();
      rebuildIndex();
    }
  }

  boolean contains(NftElement element) {
    return slotOf(element) != FREE;
  }

  boolean isEmpty() {
    return live == 0;
  }

  int size() {
    return live;
  }

  long chars() {
    return chars;
  }

  List<NftElement> inUseOrder() {
    var inOrder = new NftElement[live];
    int next = 0;
    for (int slot = 0; slot < end; slot++) {
      if (elements[slot] != null) {
        inOrder[next++] = element(slot);
      }
    }
    return Arrays.asList(inOrder);
  }

  private NftElement element(int slot) {
    return elements[slot] instanceof String key ? NftElement.of(key) : (NftElement) elements[slot];
  }

  private boolean holds(int slot, NftElement element) {
    if (elements[slot] instanceof String key) {
      return element.isKeyAlone() && element.hasKey(key);
    }
    return element.equals(elements[slot]);
  }

  private int slotOf(NftElement element) {
    int hash = element.hashCode();
    int mask = index.length - 1;
    for (int i = position(hash, mask); index[i] != FREE; i = (i + 1) & mask) {
      int slot = index[i];
      if (hashes[slot] == hash && holds(slot, element)) {
        return slot;
      }
    }
    return FREE;
  }

  private void insertIntoIndex(int slot) {
    int mask = index.length - 1;
    int i = position(hashes[slot], mask);
    while (index[i] != FREE) {
      i = (i + 1) & mask;
    }
    index[i] = slot;
  }

  private void compact() {
    int next = 0;
    for (int slot = 0; slot < end; slot++) {
      if (elements[slot] != null) {
        elements[next] = elements[slot];
        counts[next] = counts[slot];
        hashes[next] = hashes[slot];
        next++;
      }
    }
    Arrays.fill(elements, next, end, null);
    end = next;
    resize(Math.max(4, end + end / 2));
  }

  private void resize(int capacity) {
    elements = Arrays.copyOf(elements, capacity);
    counts = Arrays.copyOf(counts, capacity);
    hashes = Arrays.copyOf(hashes, capacity);
  }

  private void rebuildIndex() {
    int size = 8;
    while (2 * size < 3 * (end + 1)) {
      size *= 2;
    }
    index = newIndex(size);
    for (int slot = 0; slot < end; slot++) {
      if (elements[slot] != null) {
        insertIntoIndex(slot);
      }
    }
  }

  private static int[] newIndex(int size) {
    var fresh = new int[size];
    Arrays.fill(fresh, FREE);
    return fresh;
  }

  /**
   * Fibonacci hashing: the elements of one set differ in a few characters only, and multiplying by
   * 2^32 / golden ratio spreads that over the high bits, which become the position.
   */
  static int position(int hash, int mask) {
    return (hash * 0x9E3779B9) >>> Integer.numberOfLeadingZeros(mask);
  }
}
