package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The iptables mode's connection counters: in nat, one chain per endpoint locality that every
 * endpoint chain jumps to first (nat chains see only a connection's first packet, so its packet
 * counter counts new connections); in filter, one chain jumped to just before each drop or reject
 * for lack of endpoints; and in nat, per Service port counted per locality, one chain per locality
 * its endpoint chains jump to as well. Each holds one {@code -j RETURN} rule, whose counter is the
 * figure.
 *
 * <p>{@code iptables-restore --noflush} flushes every chain its buffer declares, counters with the
 * rules, so these chains are declared only when the kernel lacks them (or their rule) and never by
 * later syncs. Pure: names, rules and parsing of {@code iptables-save -c} output.
 */
public final class IptablesCounters {
  /** {@code [packets:bytes] -A CHAIN -j RETURN}, as {@code iptables-save -c} prints it. */
  private static final Pattern COUNTED =
      Pattern.compile("\\[(\\d+):\\d+\\] -A (PROXIMA-(?:COUNT|SC)-[A-Z0-9-]+) -j RETURN");

  private IptablesCounters() {}

  /** The counter chains of a table ({@code nat} or {@code filter}), in declaration order. */
  public static List<String> chains(String table) {
    return switch (table) {
      case "nat" -> {
        var chains = new ArrayList<String>();
        for (var locality : Locality.values()) {
          chains.add(IptablesChains.counter(locality));
        }
        yield List.copyOf(chains);
      }
      case "filter" -> List.of(IptablesChains.COUNT_NO_ENDPOINTS);
      default -> List.of();
    };
  }

  public static List<String> serviceChains(String stem) {
    var chains = new ArrayList<String>();
    for (var locality : Locality.values()) {
      chains.add(IptablesChains.serviceCounter(stem, locality));
    }
    return List.copyOf(chains);
  }

  /** A counter chain of a table: a node counter, or in nat a counted Service port's. */
  static boolean isCounter(String table, String chain) {
    return chains(table).contains(chain)
        || (table.equals("nat") && chain.startsWith(IptablesChains.SERVICE_COUNT_PREFIX));
  }

  /**
   * Each counted Service port's connections by locality, from one {@link #parse parsed} listing; a
   * port none of whose chains the listing has is left out.
   */
  public static Map<ServicePortName, Map<Locality, Long>> servicePorts(
      Map<String, Long> counts, Map<String, ServicePortName> counted) {
    var ports = new TreeMap<ServicePortName, Map<Locality, Long>>();
    counted.forEach(
        (stem, port) -> {
          var byLocality = new EnumMap<Locality, Long>(Locality.class);
          for (var locality : Locality.values()) {
            var count = counts.get(IptablesChains.serviceCounter(stem, locality));
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

  static IptablesRule rule(String table, String chain) {
    return IptablesRule.of(table, chain, "-j RETURN");
  }

  /**
   * The counter chains an {@code iptables-save -t TABLE} listing holds whole (exactly their one
   * rule). A chain found emptied or with other rules is left out, so a full sync writes it anew.
   */
  public static Set<String> whole(String table, String save) {
    var rules = new LinkedHashMap<String, List<String>>();
    for (String line : save.split("\n")) {
      if (line.startsWith(":" + IptablesChains.COUNT_PREFIX)
          || line.startsWith(":" + IptablesChains.SERVICE_COUNT_PREFIX)) {
        String chain = line.substring(1, line.indexOf(' ') > 0 ? line.indexOf(' ') : line.length());
        rules.putIfAbsent(chain, new ArrayList<>());
      } else if (line.startsWith("-A " + IptablesChains.COUNT_PREFIX)
          || line.startsWith("-A " + IptablesChains.SERVICE_COUNT_PREFIX)) {
        String chain = line.split(" ")[1];
        rules.computeIfAbsent(chain, c -> new ArrayList<>()).add(line);
      }
    }
    var whole = new TreeSet<String>();
    rules.forEach(
        (chain, lines) -> {
          if (isCounter(table, chain)
              && lines.equals(List.of(IptablesRestoreText.line(rule(table, chain))))) {
            whole.add(chain);
          }
        });
    return whole;
  }

  /**
   * The packet count of each counter chain in {@code iptables-save -c} output (all tables, or the
   * ones holding counters), taken from the chain's first rule, the only one a packet can reach.
   * Chains the output lacks are absent; a counter only counts in the table it belongs to.
   */
  public static Map<String, Long> parse(String saveWithCounters) {
    var counts = new LinkedHashMap<String, Long>();
    String table = "";
    for (String line : saveWithCounters.split("\n")) {
      if (line.startsWith("*")) {
        table = line.substring(1).strip();
        continue;
      }
      var matcher = COUNTED.matcher(line.strip());
      if (!matcher.matches() || !isCounter(table, matcher.group(2))) {
        continue;
      }
      try {
        counts.putIfAbsent(matcher.group(2), Long.parseLong(matcher.group(1)));
      } catch (NumberFormatException e) {
        // beyond a long: not a count these counters can reach; left out
      }
    }
    return counts;
  }
}
