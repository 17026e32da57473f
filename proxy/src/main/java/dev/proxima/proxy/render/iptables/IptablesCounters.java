package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Connection counters: chains of one {@code -j RETURN} rule whose packet count is the figure. In
 * nat (which sees only first packets) one per locality, node-wide and per counted port; in filter
 * one before each drop or reject for lack of endpoints. Declared only when missing, as that
 * flushes.
 */
public final class IptablesCounters {
  /** {@code [packets:bytes] -A CHAIN -j RETURN}, as {@code iptables-save -c} prints it. */
  private static final Pattern COUNTED =
      Pattern.compile("\\[(\\d+):\\d+\\] -A (PROXIMA-(?:COUNT|SC)-[A-Z0-9-]+) -j RETURN");

  private IptablesCounters() {}

  /** In declaration order. */
  public static List<String> chains(String table) {
    return switch (table) {
      case "nat" -> Arrays.stream(Locality.values()).map(IptablesChains::counter).toList();
      case "filter" -> List.of(IptablesChains.COUNT_NO_ENDPOINTS);
      default -> List.of();
    };
  }

  public static List<String> serviceChains(String stem) {
    return Arrays.stream(Locality.values())
        .map(locality -> IptablesChains.serviceCounter(stem, locality))
        .toList();
  }

  /** A counter chain of a table: a node counter, or in nat a counted Service port's. */
  static boolean isCounter(String table, String chain) {
    return chains(table).contains(chain)
        || (table.equals("nat") && chain.startsWith(IptablesChains.SERVICE_COUNT_PREFIX));
  }

  /** Each counted port's connections by locality; a port the listing lacks is left out. */
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
   * The counter chains the listing holds whole (their one rule), so a full sync rewrites others.
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

  /** Each counter chain's packets in {@code iptables-save -c} output, in its own table only. */
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
