package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftNames;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ObjLongConsumer;
import java.util.regex.Pattern;

/**
 * Reads the connection counts from listings of the sets declared with {@code counter}: nft 1.0.6
 * reads the whole table to list a named counter, and the table's maps can be large.
 */
public final class NftCounters {
  private NftCounters() {}

  /** Each node-wide count of connections (first packets) by its name. */
  public static Map<String, Long> parse(String listing) {
    var names = new java.util.HashMap<String, String>();
    for (var locality : Locality.values()) {
      names.put(NftNames.counterKey(locality), of(locality));
    }
    names.put(NftNames.counterKey(null), withoutEndpoints());
    var counts = new LinkedHashMap<String, Long>();
    forEachElement(
        listing,
        NftNames.COUNTERS,
        () -> {},
        (key, packets) -> {
          var name = names.get(key);
          if (name != null) {
            counts.put(name, packets);
          }
        });
    return counts;
  }

  /** Per locality, each counting key to its count; a set the listing lacks is absent. */
  public static Map<Locality, Map<String, Long>> parseServiceSets(String listing) {
    var sets = new EnumMap<Locality, Map<String, Long>>(Locality.class);
    forEachServiceSetElement(
        listing,
        locality -> sets.put(locality, new LinkedHashMap<>()),
        (locality, key, packets) -> sets.get(locality).put(key, packets));
    return sets;
  }

  @FunctionalInterface
  public interface ElementCount {
    void accept(Locality locality, String key, long packets);
  }

  /** Builds no map: at 10,000 counted ports, 40,000 elements are read on every scrape. */
  static void forEachServiceSetElement(
      String listing, java.util.function.Consumer<Locality> setFound, ElementCount each) {
    for (var locality : Locality.values()) {
      forEachElement(
          listing,
          NftNames.serviceSet(locality),
          () -> setFound.accept(locality),
          (key, packets) -> each.accept(locality, key, packets));
    }
  }

  private static void forEachElement(
      String listing, String set, Runnable setFound, ObjLongConsumer<String> each) {
    var header = "set " + set + " {";
    int start = listing.indexOf(header);
    if (start < 0) {
      return;
    }
    setFound.run();
    // nft prints a set's closing brace alone at the set's indentation, one tab.
    int end = listing.indexOf("\n\t}", start);
    if (end < 0) {
      end = listing.length();
    }
    int elements = listing.indexOf("elements = {", start);
    if (elements < 0 || elements > end) {
      return;
    }
    int from = elements + "elements = {".length();
    for (int at = listing.indexOf(PACKETS, from);
        at >= 0 && at < end;
        at = listing.indexOf(PACKETS, from)) {
      int keyStart = from;
      for (int i = at - 1; i >= from; i--) {
        char c = listing.charAt(i);
        if (c == ',' || c == '{') {
          keyStart = i + 1;
          break;
        }
      }
      int digits = at + PACKETS.length();
      long packets = 0;
      boolean fits = digits < end && Character.isDigit(listing.charAt(digits));
      int i = digits;
      for (; i < end && Character.isDigit(listing.charAt(i)); i++) {
        int digit = listing.charAt(i) - '0';
        if (packets > (Long.MAX_VALUE - digit) / 10) {
          // beyond a long: not a count a set element can reach; left out
          fits = false;
        }
        packets = packets * 10 + digit;
      }
      from = i;
      var key = key(listing, keyStart, at);
      if (fits && key != null) {
        each.accept(key, packets);
      }
    }
  }

  private static final String PACKETS = " counter packets ";

  /** What nft prints of an address, protocol and port tuple or a mark, lower case but hex. */
  private static final Pattern KEY = Pattern.compile("[0-9a-zA-F:. -]+");

  private static String key(String listing, int from, int to) {
    var key = listing.substring(from, to).strip();
    return KEY.matcher(key).matches() ? key : null;
  }

  /** Empty without the sets; an ownerless key is left out, a counted port without one is 0. */
  public static ServicePortCounts servicePortCounts(
      String listing, Map<String, ServicePortName> owners, Set<ServicePortName> counted) {
    var figures = new java.util.TreeMap<ServicePortName, long[]>();
    counted.forEach(port -> figures.put(port, new long[Locality.values().length]));
    var found = new boolean[1];
    forEachServiceSetElement(
        listing,
        locality -> found[0] = true,
        (locality, key, packets) -> {
          var owner = owners.get(key);
          var of = owner == null ? null : figures.get(owner);
          if (of != null) {
            of[locality.ordinal()] += packets;
          }
        });
    return found[0] ? ServicePortCounts.ofFigures(figures) : ServicePortCounts.NONE;
  }

  public static String of(Locality locality) {
    return NftNames.LOCALITY_PREFIX + locality.label();
  }

  public static String withoutEndpoints() {
    return NftNames.NO_ENDPOINTS_COUNTER;
  }
}
