package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * Reads the named counters of the proxy's table from {@code nft list counters table ...}: the
 * connections counted per endpoint locality and those without endpoints, and per counted Service
 * port.
 */
public final class NftCounters {
  private static final Pattern COUNTER =
      Pattern.compile("counter ([a-z0-9-]+) \\{\\s*packets (\\d+) bytes \\d+");

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
   * Each counted Service port's connections by locality, from the counters of one listing.
   *
   * @param counts the listing, {@link #parse parsed}
   * @param counted the counted Service ports by the stem of their counters' names ({@link
   *     NftNames#serviceCounterStem}); a port none of whose counters the listing has is left out
   *     (not loaded yet, or gone)
   */
  public static Map<ServicePortName, Map<Locality, Long>> servicePorts(
      Map<String, Long> counts, Map<String, ServicePortName> counted) {
    return servicePorts(counts, counted, (stem, locality) -> stem + locality.label());
  }

  /**
   * As {@link #servicePorts(Map, Map)}, for counters named by {@code nameOf} (the iptables mode's
   * counter chains too).
   *
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
