package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenarios 13, 14 and 17: a proxy killed and restarted, the API server going away, and a firewall
 * reload flushing the node's ruleset under a running proxy.
 */
@ExtendWith(NetnsClusterExtension.class)
class DisruptionNetnsIT {
  @Test
  void aProxyKilledAndRestartedKeepsConnectionsWorkingAndServesTheSameRoutes(NetnsCluster cluster) {
    var zonal = servedInZoneA(cluster, "restarted");
    var node = cluster.node("a1");
    var client = cluster.clientOn("a1");
    var rulesBefore = programmed(cluster.nftTables(node));

    try (var established = cluster.session(client, zonal, "tcp")) {
      var first = established.ask();
      assertThat(first.answered()).as("%s: %s", established, first).isTrue();

      cluster.killProxy(node);
      assertThat(established.ask().server())
          .as("%s while the proxy is down", established)
          .isEqualTo(first.server());
      var whileDown = cluster.probe(client, zonal, "tcp", 20);
      assertThat(whileDown.servers())
          .as("new connections while the proxy is down: %s", whileDown)
          .containsExactly("a1s1", "a2s1");

      cluster.startProxy(node);
      cluster.awaitProxyHealthy(node);
      assertThat(established.ask().server())
          .as("%s after the restart", established)
          .isEqualTo(first.server());
    }
    Eventually.holds(
        () -> {
          var after = cluster.probe(client, zonal, "tcp", 20);
          assertThat(after.servers())
              .as("after the restart: %s", after)
              .containsExactly("a1s1", "a2s1");
          assertThat(programmed(cluster.nftTables(node)))
              .as("the restarted proxy programs the same tables")
              .isEqualTo(rulesBefore);
        });
  }

  @Test
  void aFirewallReloadThatFlushesTheRulesetIsRepairedWithinTheSyncPeriod(NetnsCluster cluster) {
    var web = servedInZoneA(cluster, "flushed");
    var node = cluster.node("a1");
    var client = cluster.clientOn("a1");
    var rulesBefore = programmed(cluster.nftTables(node));

    cluster.flushRuleset(node);

    // The proxies run with --sync-period=5s: the kernel check notices within it, with no change of
    // any Service to prompt a sync, and the full sync that follows rebuilds both tables.
    Eventually.holds(
        () -> {
          assertThat(programmed(cluster.nftTables(node)))
              .as("the tables the proxy rebuilt")
              .isEqualTo(rulesBefore);
          var after = cluster.probe(client, web, "tcp", 20);
          assertThat(after.servers())
              .as("after the rebuild: %s", after)
              .containsExactly("a1s1", "a2s1");
        });
  }

  /**
   * A PreferSameZone Service with endpoints on a1, a2 and b1, once a1's client reaches only the two
   * in its zone.
   */
  private static Workload servedInZoneA(NetnsCluster cluster, String name) {
    var workload =
        cluster.applyHinted(
            cluster.workload(name).distributed("PreferSameZone"),
            cluster.ready("a1s1", "a2s1", "b1s1"));
    var client = cluster.clientOn("a1");
    Eventually.holds(
        () -> {
          var answers = cluster.probe(client, workload, "tcp", 20);
          assertThat(answers.servers()).as("%s", answers).containsExactly("a1s1", "a2s1");
        });
    return workload;
  }

  private static Map<String, Map<String, List<String>>> programmed(Map<String, String> tables) {
    var programmed = new TreeMap<String, Map<String, List<String>>>();
    tables.forEach((name, text) -> programmed.put(name, RulesetText.programmed(text)));
    return programmed;
  }

  @Test
  void duringAnApiServerOutageTrafficFlowsHealthStaysGoodAndChangesApplyOnReturn(
      NetnsCluster cluster) {
    var web = cluster.workload("outage");
    cluster.apply(web, cluster.ready("a1s1", "b1s1"));
    var client = cluster.clientOn("a2");
    Eventually.holds(
        () -> {
          var answers = cluster.probe(client, web, "tcp", 10);
          assertThat(answers.servers()).as("%s", answers).containsExactly("a1s1", "b1s1");
        });

    cluster.api().stop();
    try {
      await("traffic flows and every proxy stays healthy while the API server is down")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                var answers = cluster.probe(client, web, "tcp", 4);
                assertThat(answers.allAnswered()).as("%s", answers).isTrue();
                assertThat(answers.servers()).isSubsetOf("a1s1", "b1s1");
                for (var node : cluster.layout.nodes()) {
                  assertThat(cluster.proxyHealthz(node))
                      .as("%s /healthz", node.name())
                      .isEqualTo(200);
                }
              });
      cluster.setEndpointsWhileApiServerIsDown(web, cluster.ready("c1s1"));
      var stillOld = cluster.probe(client, web, "tcp", 10);
      assertThat(stillOld.allAnswered()).as("%s", stillOld).isTrue();
      assertThat(stillOld.servers())
          .as("nothing reaches the proxies while the API server is down: %s", stillOld)
          .isSubsetOf("a1s1", "b1s1");
    } finally {
      cluster.api().restart();
    }

    // Every proxy, not only the client's: each reconnects on its own backoff, and the mock API
    // server does not replay what a reconnecting watch missed, so a later deletion would be lost
    // on a proxy that is still away when it happens.
    for (var node : cluster.layout.nodes()) {
      var onNode = cluster.layout.client(node);
      await("the change made during the outage is applied on " + node.name())
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                var answers = cluster.probe(onNode, web, "tcp", 10);
                assertThat(answers.counts()).as("%s", answers).containsOnlyKeys("c1s1");
              });
    }
    for (var node : cluster.layout.nodes()) {
      assertThat(cluster.proxyHealthz(node)).as("%s /healthz", node.name()).isEqualTo(200);
    }
  }
}
