package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * Reads the proxy's connection counts from nft listings: the named counters ({@code nft list
 * counters table ...}), connections per endpoint locality and those without endpoints, and the
 * elements of the counting sets ({@code nft list set ...}), per counted Service port.
 */
public final class NftCounters {
  private static final Pattern COUNTER =
      Pattern.compile("counter ([a-z0-9-]+) \\{\\s*packets (\\d+) bytes \\d+");

  /** One element of a counting set: {@code address . protocol . port counter packets N}. */
  private static final Pattern ELEMENT =
      Pattern.compile(
          "([0-9A-Fa-f:.]+) \\. ([a-z0-9-]+) \\. (\\d+) counter packets (\\d+) bytes \\d+");

  private NftCounters() {}

  /**
   * The packet count of each counter in the listing; the rules count only a connection's first
   * packet, so this is connections. Counters the listing lacks are absent.
   */
  public static Map<String, Long> parse(String listing) {
    var counts = new LinkedHashMap<String, Long>();
    var matcher = COUNTER.matcher(listing);
    while (matcher.find()) {
      try {
        counts.put(matcher.group(1), Long.parseLong(matcher.group(2)));
      } catch (NumberFormatException e) {
        // beyond a long: not a count this table's counters can reach; left out
      }
    }
    return counts;
  }

  /**
   * The packet count of each element of the per-Service counting sets ({@link NftNames#serviceSet})
   * in a listing of them: per locality, {@code address . protocol . port} to its count. A set the
   * listing does not hold is absent; one without elements maps to an empty map.
   */
  public static Map<Locality, Map<String, Long>> parseServiceSets(String listing) {
    var sets = new EnumMap<Locality, Map<String, Long>>(Locality.class);
    for (var locality : Locality.values()) {
      var header = "set " + NftNames.serviceSet(locality) + " {";
      int start = listing.indexOf(header);
      if (start < 0) {
        continue;
      }
      // nft prints a set's closing brace alone at the set's indentation, one tab.
      int end = listing.indexOf("\n\t}", start);
      var block = listing.substring(start, end < 0 ? listing.length() : end);
      var elements = new LinkedHashMap<String, Long>();
      var matcher = ELEMENT.matcher(block);
      while (matcher.find()) {
        try {
          elements.put(
              matcher.group(1) + " . " + matcher.group(2) + " . " + matcher.group(3),
              Long.parseLong(matcher.group(4)));
        } catch (NumberFormatException e) {
          // beyond a long: not a count a set element can reach; left out
        }
      }
      sets.put(locality, elements);
    }
    return sets;
  }

  /**
   * Each counted Service port's connections by locality, the sum of its elements' counts in the
   * counting sets; empty when the listing held none of the sets (not loaded, or unreadable).
   *
   * @param sets the listing of the counting sets, {@link #parseServiceSets parsed}
   * @param owners each counting key to the port it counts for ({@link
   *     RulesetAssembler#countingOwners()}); a key without one is left out (it went since)
   * @param counted the counted ports: each is in the result, at 0 where it has no count yet
   */
  public static Map<ServicePortName, Map<Locality, Long>> servicePorts(
      Map<Locality, Map<String, Long>> sets,
      Map<String, ServicePortName> owners,
      Set<ServicePortName> counted) {
    var ports = new TreeMap<ServicePortName, Map<Locality, Long>>();
    if (sets.isEmpty()) {
      return ports;
    }
    for (var port : counted) {
      var byLocality = new EnumMap<Locality, Long>(Locality.class);
      for (var locality : Locality.values()) {
        byLocality.put(locality, 0L);
      }
      ports.put(port, byLocality);
    }
    sets.forEach(
        (locality, elements) ->
            elements.forEach(
                (key, count) -> {
                  var owner = owners.get(key);
                  var byLocality = owner == null ? null : ports.get(owner);
                  if (byLocality != null) {
                    byLocality.merge(locality, count, Long::sum);
                  }
                }));
    return ports;
  }

  /**
   * Each counted Service port's connections by locality, from named counters (the iptables mode's
   * counter chains).
   *
   * @param counts the listing, {@link #parse parsed}
   * @param counted the counted Service ports by the stem of their counters' names; a port none of
   *     whose counters the listing has is left out (not loaded yet, or gone)
   * @param nameOf a counter's name from its port's stem and its locality
   */
  public static Map<ServicePortName, Map<Locality, Long>> servicePorts(
      Map<String, Long> counts,
      Map<String, ServicePortName> counted,
      BiFunction<String, Locality, String> nameOf) {
    var ports = new TreeMap<ServicePortName, Map<Locality, Long>>();
    counted.forEach(
        (stem, port) -> {
          var byLocality = new EnumMap<Locality, Long>(Locality.class);
          for (var locality : Locality.values()) {
            var count = counts.get(nameOf.apply(stem, locality));
            if (count != null) {
              byLocality.put(locality, count);
            }
          }
          if (!byLocality.isEmpty()) {
            ports.put(port, byLocality);
          }
        });
    return ports;
  }

  /** The name of the counter of {@code locality}. */
  public static String of(Locality locality) {
    return NftNames.localityCounter(locality);
  }

  /** The name of the counter of connections dropped or rejected for lack of endpoints. */
  public static String withoutEndpoints() {
    return NftNames.NO_ENDPOINTS_COUNTER;
  }
}
