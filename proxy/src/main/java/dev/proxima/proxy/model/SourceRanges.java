package dev.proxima.proxy.model;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.RandomAccess;

/**
 * A Service's {@code loadBalancerSourceRanges}, parsed once and reduced to the outermost ranges:
 * without duplicates and without ranges inside another one of the list, in first-seen order,
 * printed canonically. nft interval sets reject nested ranges, and for matching a source an inner
 * range adds nothing.
 *
 * <p>Made once per Service at the edge (the catalog) and shared by all its ports: the renderers
 * take {@link #of(IpFamily)} as it is, so a Service's ranges cost O(R log R) once per plan, not a
 * comparison of every pair for every port. As a list it reads as the canonical strings, which is
 * what a {@link ServicePort} holds.
 */
public final class SourceRanges extends AbstractList<String> implements RandomAccess {
  public static final SourceRanges NONE = new SourceRanges(List.of(), List.of());

  private final List<Cidr> cidrs;
  private final List<String> text;
  private final List<String> unreadable;

  private SourceRanges(List<Cidr> cidrs, List<String> unreadable) {
    this.cidrs = List.copyOf(cidrs);
    this.text = cidrs.stream().map(Cidr::toString).toList();
    this.unreadable = List.copyOf(unreadable);
  }

  public static SourceRanges outermostOf(List<Cidr> cidrs) {
    return cidrs.isEmpty() ? NONE : new SourceRanges(outermost(cidrs, null), List.of());
  }

  /**
   * {@code ranges} as they are when already reduced (what the catalog hands over), else parsed and
   * reduced; the strings that are not CIDRs are kept aside ({@link #unreadable}) for a warning.
   */
  public static SourceRanges of(List<String> ranges) {
    if (ranges instanceof SourceRanges reduced) {
      return reduced;
    }
    if (ranges == null || ranges.isEmpty()) {
      return NONE;
    }
    var parsed = new ArrayList<Cidr>(ranges.size());
    var unreadable = new ArrayList<String>();
    for (var raw : ranges) {
      var cidr = Cidr.parse(raw);
      if (cidr == null) {
        unreadable.add(String.valueOf(raw));
      } else {
        parsed.add(cidr);
      }
    }
    return new SourceRanges(outermost(parsed, null), unreadable);
  }

  /** Both families. */
  public List<Cidr> cidrs() {
    return cidrs;
  }

  /** {@link #cidrs} itself when every range is of the family. */
  public List<Cidr> of(IpFamily family) {
    for (var cidr : cidrs) {
      if (cidr.family() != family) {
        return cidrs.stream().filter(c -> c.family() == family).toList();
      }
    }
    return cidrs;
  }

  /** Never any from the catalog. */
  public List<String> unreadable() {
    return unreadable;
  }

  public SourceRanges plus(List<Cidr> more) {
    var all = new ArrayList<Cidr>(cidrs.size() + more.size());
    all.addAll(cidrs);
    all.addAll(more);
    return new SourceRanges(outermost(all, null), unreadable);
  }

  @Override
  public String get(int index) {
    return text.get(index);
  }

  @Override
  public int size() {
    return text.size();
  }

  /**
   * The ranges not inside another one of the list, each once, in first-seen order. Sorted by
   * network (unsigned bytes, IPv4 before IPv6) and then widest first, a range is inside an earlier
   * one exactly when it is inside the last one kept: CIDRs either nest or do not overlap, so the
   * kept ranges are disjoint and the one that could contain the next is the latest. One sort and
   * one sweep: O(R log R).
   *
   * @param work counts comparisons and containment checks when not null (for tests)
   */
  static List<Cidr> outermost(List<Cidr> cidrs, long[] work) {
    int n = cidrs.size();
    var keys = new Key[n];
    for (int i = 0; i < n; i++) {
      var cidr = cidrs.get(i);
      keys[i] = new Key(cidr, cidr.network().bytes(), i);
    }
    Comparator<Key> order =
        (a, b) -> {
          if (work != null) {
            work[0]++;
          }
          int c = Integer.compare(a.bytes.length, b.bytes.length);
          if (c == 0) {
            c = Arrays.compareUnsigned(a.bytes, b.bytes);
          }
          if (c == 0) {
            c = Integer.compare(a.cidr.prefix(), b.cidr.prefix());
          }
          return c != 0 ? c : Integer.compare(a.index, b.index);
        };
    Arrays.sort(keys, order);
    var kept = new ArrayList<Key>();
    Key last = null;
    for (var key : keys) {
      if (work != null) {
        work[0]++;
      }
      if (last != null && last.cidr().contains(key.cidr())) {
        continue; // a duplicate of the last kept range or inside it
      }
      kept.add(key);
      last = key;
    }
    kept.sort(Comparator.comparingInt(Key::index));
    return kept.stream().map(Key::cidr).toList();
  }

  private record Key(Cidr cidr, byte[] bytes, int index) {}
}
