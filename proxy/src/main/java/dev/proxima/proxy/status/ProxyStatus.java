package dev.proxima.proxy.status;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's proxy as {@code status} shows it, read from its metrics and health check. Pure.
 *
 * @param problem why the proxy could not be read (or why there is none), or null
 * @param healthy null when /healthz could not be asked
 * @param rules iptables rules in Proxima's chains (iptables mode), or -1 when not counted
 */
public record ProxyStatus(
    String node,
    String zone,
    String pod,
    String problem,
    String mode,
    String version,
    Instant lastSync,
    Boolean healthy,
    long failures,
    long pendingChanges,
    long servicePorts,
    long rules,
    Map<String, Long> connections) {
  public ProxyStatus {
    connections = Map.copyOf(connections);
  }

  public static ProxyStatus unreadable(String node, String zone, String pod, String problem) {
    return new ProxyStatus(node, zone, pod, problem, null, null, null, null, 0, 0, 0, -1, Map.of());
  }

  public static ProxyStatus of(
      String node, String zone, String pod, MetricsText metrics, Boolean healthy) {
    String mode = null;
    long failures = 0;
    // A labelled counter nothing has counted is not exposed at all, so each mode is also told by
    // a gauge only it registers.
    if (metrics.has("kubeproxy_sync_proxy_rules_nftables_sync_failures_total")
        || metrics.has("proxima_proxy_nftables_stale_objects")) {
      mode = "nftables";
      failures = (long) metrics.sum("kubeproxy_sync_proxy_rules_nftables_sync_failures_total");
    } else if (metrics.has("kubeproxy_sync_proxy_rules_iptables_restore_failures_total")
        || metrics.has("proxima_proxy_iptables_backend")) {
      var backend =
          metrics.sum("proxima_proxy_iptables_backend", "backend", "legacy") > 0 ? "legacy" : "nft";
      mode = "iptables (" + backend + ")";
      failures = (long) metrics.sum("kubeproxy_sync_proxy_rules_iptables_restore_failures_total");
    }
    double last = metrics.max("kubeproxy_sync_proxy_rules_last_timestamp_seconds");
    var connections = new LinkedHashMap<String, Long>();
    for (var locality : List.of("node", "zone", "other-zone", "unknown")) {
      connections.put(
          locality, (long) metrics.sum("proxima_proxy_connections_total", "locality", locality));
    }
    return new ProxyStatus(
        node,
        zone,
        pod,
        null,
        mode,
        metrics.label("proxima_build_info", "version"),
        Double.isNaN(last) || last <= 0 ? null : Instant.ofEpochMilli((long) (last * 1000)),
        healthy,
        failures,
        (long)
            (metrics.sum("kubeproxy_sync_proxy_rules_endpoint_changes_pending")
                + metrics.sum("kubeproxy_sync_proxy_rules_service_changes_pending")),
        (long) metrics.sum("proxima_proxy_service_ports_by_topology"),
        metrics.has("kubeproxy_sync_proxy_rules_iptables_total")
            ? (long) metrics.sum("kubeproxy_sync_proxy_rules_iptables_total")
            : -1,
        connections);
  }

  public long connectionsTotal() {
    return connections.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Null without connections. */
  public Double onNode() {
    long total = connectionsTotal();
    return total == 0 ? null : (double) connections.getOrDefault("node", 0L) / total;
  }

  /** The node included; null without connections. */
  public Double inZone() {
    long total = connectionsTotal();
    return total == 0
        ? null
        : (double) (connections.getOrDefault("node", 0L) + connections.getOrDefault("zone", 0L))
            / total;
  }

  /** A table like {@code cilium status}'s: one row per node, then a summary line. */
  public static String table(List<ProxyStatus> nodes, Instant now) {
    var rows = new ArrayList<List<String>>();
    rows.add(
        List.of(
            "NODE",
            "ZONE",
            "PROXY",
            "MODE",
            "VERSION",
            "HEALTH",
            "LAST SYNC",
            "FAILURES",
            "PENDING",
            "SVC PORTS",
            "RULES",
            "ON NODE",
            "IN ZONE"));
    int healthy = 0;
    for (var status : nodes) {
      if (status.problem() != null) {
        var row = new ArrayList<>(Collections.nCopies(rows.get(0).size(), ""));
        row.set(0, status.node());
        row.set(1, orDash(status.zone()));
        row.set(2, orDash(status.pod()));
        row.set(3, status.problem());
        rows.add(row);
        continue;
      }
      if (Boolean.TRUE.equals(status.healthy())) {
        healthy++;
      }
      rows.add(
          List.of(
              status.node(),
              orDash(status.zone()),
              status.pod(),
              orDash(status.mode()),
              orDash(status.version()),
              status.healthy() == null ? "?" : status.healthy() ? "ok" : "UNHEALTHY",
              status.lastSync() == null ? "never" : age(Duration.between(status.lastSync(), now)),
              String.valueOf(status.failures()),
              String.valueOf(status.pendingChanges()),
              String.valueOf(status.servicePorts()),
              status.rules() < 0 ? "-" : String.valueOf(status.rules()),
              percent(status.onNode()),
              percent(status.inZone())));
    }
    var out = new StringBuilder();
    int[] widths = new int[rows.get(0).size()];
    for (var row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (var row : rows) {
      var line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(
            i == row.size() - 1
                ? row.get(i)
                : String.format("%-" + (widths[i] + 2) + "s", row.get(i)));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    out.append('\n')
        .append(healthy)
        .append(" of ")
        .append(nodes.size())
        .append(" nodes have a healthy proxy.")
        .append(
            " ON NODE and IN ZONE: shares of the connections the node's rules sent to an endpoint"
                + " on the node, and in its zone, since the proxy started.\n");
    return out.toString();
  }

  private static String orDash(String value) {
    return value == null || value.isEmpty() ? "-" : value;
  }

  private static String percent(Double share) {
    return share == null ? "-" : Math.round(share * 100) + "%";
  }

  private static String age(Duration age) {
    long seconds = Math.max(0, age.getSeconds());
    if (seconds < 120) {
      return seconds + "s ago";
    }
    if (seconds < 7200) {
      return seconds / 60 + "m ago";
    }
    return seconds / 3600 + "h ago";
  }
}
