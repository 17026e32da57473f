package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftText;
import java.util.Arrays;
import java.util.List;

/**
 * The elements of one set or map and how many Service ports use each, in the order they were first
 * used: an element that stops being used and comes back goes to the end, as in a {@link
 * java.util.LinkedHashMap}. That order is the order of the full script's elements.
 *
 * <p>There is one entry per element of the table, so at 10,000 Services this holds hundreds of
 * thousands of them. A {@code LinkedHashMap<String, Integer>} spends about 48 bytes on each; this
 * keeps the elements, counts and hash codes in arrays, in use order, plus an open-addressing index
 * of slot numbers, about 24 bytes. A released slot is left empty, and the arrays are compacted once
 * empty slots outnumber used ones.
 *
 * <p>Most elements are keys alone (hairpin pairs, endpoint addresses, ClusterIPs): those are held
 * as their key string, and become {@link NftElement}s again only while a script is written, which
 * saves the record's 24 bytes on each.
 */
final class ElementUses {
  private static final int FREE = -1;

  /**
   * Elements in first-use order, each an {@link NftElement}, or the key {@code String} of an
   * element that is a key alone; null where an element was released.
   */
  private Object[] elements = new Object[4];

  private int[] counts = new int[4];

  /**
   * Each slot's element's hash code, so a lookup passes other elements without reading them: with
   * hundreds of thousands of elements, each read is a cache miss.
   */
  private int[] hashes = new int[4];

  /** Slots used in {@link #elements}, released ones included. */
  private int end;

  private int live;

  /** The total length of the elements in use, to size the script before writing it. */
  private long chars;

  /**
   * Slot numbers by hash, linear probing; kept at most two thirds full, counting released slots,
   * which still have their entries here until the next rebuild.
   */
  private int[] index = newIndex(8);

  /** Counts one more use; an element several ports use (a hairpin pair) is held once. */
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

  /** Counts one use less; the element leaves the table when nothing uses it. */
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

  /** The elements in use order. */
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

  /** Whether what {@code slot} holds is {@code element}. */
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

  /** Moves the used slots to the front, keeping their order. */
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

  /** A fresh index, between a third and two thirds full for the slots in use now. */
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
   * 2^32 / golden ratio spreads that over the high bits, which become the position. (The low bits
   * of the product depend only on the low bits of the hash.)
   */
  static int position(int hash, int mask) {
    return (hash * 0x9E3779B9) >>> Integer.numberOfLeadingZeros(mask);
  }
}
