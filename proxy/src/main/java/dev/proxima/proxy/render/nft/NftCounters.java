package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Locality;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the named counters of the proxy's table from {@code nft list counters table ...}: the
 * connections counted per endpoint locality and those without endpoints.
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

  /** The name of the counter of {@code locality}. */
  public static String of(Locality locality) {
    return NftNames.localityCounter(locality);
  }

  /** The name of the counter of connections dropped or rejected for lack of endpoints. */
  public static String withoutEndpoints() {
    return NftNames.NO_ENDPOINTS_COUNTER;
  }
}
