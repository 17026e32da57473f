package dev.proxima.proxy.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code status} makes of a proxy's metrics page, and the table it prints. */
class ProxyStatusTest {
  private static final String IPTABLES_PROXY =
      """
      # HELP proxima_build_info Always 1
      # TYPE proxima_build_info gauge
      proxima_build_info{revision="abc",version="1.2.3"} 1
      # TYPE kubeproxy_sync_proxy_rules_last_timestamp_seconds gauge
      kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"} 1.7966400E9
      kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 1.7966401E9
      # TYPE kubeproxy_sync_proxy_rules_iptables_restore_failures counter
      kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family="IPv4"} 2.0
      # TYPE proxima_proxy_iptables_backend gauge
      proxima_proxy_iptables_backend{backend="legacy"} 1.0
      proxima_proxy_iptables_backend{backend="nft"} 0.0
      kubeproxy_sync_proxy_rules_iptables_total{table="nat",ip_family="IPv4"} 40
      kubeproxy_sync_proxy_rules_iptables_total{table="filter",ip_family="IPv4"} 2
      kubeproxy_sync_proxy_rules_endpoint_changes_pending 1
      kubeproxy_sync_proxy_rules_service_changes_pending 0
      proxima_proxy_service_ports_by_topology{level="None",ip_family="IPv4"} 3
      proxima_proxy_service_ports_by_topology{level="PreferSameZone",ip_family="IPv4"} 2
      proxima_proxy_connections_total{locality="node"} 30.0
      proxima_proxy_connections_total{locality="zone"} 50.0
      proxima_proxy_connections_total{locality="other-zone"} 20.0
      proxima_proxy_connections_total{locality="unknown"} 0.0
      """;

  @Test
  void anIptablesProxysMetricsGiveEveryColumn() {
    var status =
        ProxyStatus.of("node-a", "zone-a", "proxy-x", MetricsText.parse(IPTABLES_PROXY), true);

    assertThat(status.mode()).isEqualTo("iptables (legacy)");
    assertThat(status.version()).isEqualTo("1.2.3");
    assertThat(status.lastSync()).isEqualTo(Instant.ofEpochSecond(1_796_640_100L));
    assertThat(status.failures()).isEqualTo(2);
    assertThat(status.pendingChanges()).isEqualTo(1);
    assertThat(status.servicePorts()).isEqualTo(5);
    assertThat(status.rules()).isEqualTo(42);
    assertThat(status.onNode()).isEqualTo(0.3);
    assertThat(status.inZone()).isEqualTo(0.8);
  }

  @Test
  void anNftablesProxyIsKnownByItsGaugeBeforeAnyFailureIsCounted() {
    var metrics =
        MetricsText.parse(
            """
            # TYPE proxima_proxy_nftables_stale_objects gauge
            proxima_proxy_nftables_stale_objects{ip_family="IPv4"} 0.0
            """);

    var status = ProxyStatus.of("node-a", null, "proxy-x", metrics, false);

    assertThat(status.mode()).isEqualTo("nftables");
    assertThat(status.rules()).as("nft rules are not counted").isEqualTo(-1);
    assertThat(status.lastSync()).isNull();
    assertThat(status.onNode()).isNull();
  }

  @Test
  void theTableHasARowPerNodeWithTheNodesWithoutAProxySaidSo() {
    var now = Instant.ofEpochSecond(1_796_640_130L);
    var table =
        ProxyStatus.table(
            List.of(
                ProxyStatus.of(
                    "node-a", "zone-a", "proxy-x", MetricsText.parse(IPTABLES_PROXY), true),
                ProxyStatus.unreadable("node-b", "zone-b", null, "no proxy pod")),
            now);

    assertThat(table.lines().toList())
        .containsExactly(
            "NODE    ZONE    PROXY    MODE               VERSION  HEALTH  LAST SYNC  FAILURES"
                + "  PENDING  SVC PORTS  RULES  ON NODE  IN ZONE",
            "node-a  zone-a  proxy-x  iptables (legacy)  1.2.3    ok      30s ago    2       "
                + "  1        5          42     30%      80%",
            "node-b  zone-b  -        no proxy pod",
            "",
            "1 of 2 nodes have a healthy proxy. ON NODE and IN ZONE: shares of the connections the"
                + " node's rules sent to an endpoint on the node, and in its zone, since the proxy"
                + " started.");
  }
}
