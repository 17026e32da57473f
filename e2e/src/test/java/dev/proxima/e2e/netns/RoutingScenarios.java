package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.ProxyMode;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The routing scenarios (1, 2, 5, 6, 7 of the e2e issue), written once for every data plane: a
 * subclass names the proxy mode, and the shared cluster's proxies are restarted in that mode.
 */
@ExtendWith(NetnsClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RoutingScenarios implements NetnsClusterExtension.PicksProxyMode {
  abstract ProxyMode mode();

  @BeforeAll
  void runProxiesInThisMode(NetnsCluster cluster) {
    cluster.useMode(mode());
  }

  @Test
  void preferSameZoneAndPreferCloseKeepTrafficInZoneAndFallBackWhereTheZoneHasNoServers(
      NetnsCluster cluster) {
    for (var distribution : List.of("PreferSameZone", "PreferClose")) {
      var workload =
          cluster.workload("zonal-" + distribution.toLowerCase()).distributed(distribution);
      // The PreferSameZone Service opts in to per-Service locality counting; PreferClose not.
      boolean observed = distribution.equals("PreferSameZone");
      if (observed) {
        workload.annotations.put(dev.proxima.model.Annotations.OBSERVE_LOCALITY, "true");
      }
      var zonal = cluster.applyHinted(workload, cluster.ready("a1s1", "a1s2", "a2s1", "b1s1"));

      Eventually.holds(
          () -> {
            var fromA1 = cluster.probe(cluster.clientOn("a1"), zonal, "tcp", 30);
            var fromA2 = cluster.probe(cluster.clientOn("a2"), zonal, "tcp", 30);
            var fromB1 = cluster.probe(cluster.clientOn("b1"), zonal, "tcp", 10);
            var fromC1 = cluster.probe(cluster.clientOn("c1"), zonal, "tcp", 30);
            var all = Answers.describe(List.of(fromA1, fromA2, fromB1, fromC1));
            assertThat(fromA1.servers())
                .as("%s: zone-a's client reaches each zone-a server only%s", distribution, all)
                .containsExactlyInAnyOrder("a1s1", "a1s2", "a2s1");
            assertThat(fromA2.servers())
                .as("%s: zone-a's other client too%s", distribution, all)
                .containsExactlyInAnyOrder("a1s1", "a1s2", "a2s1");
            assertThat(fromB1.servers())
                .as("%s: zone-b's client reaches zone-b's server only%s", distribution, all)
                .containsExactly("b1s1");
            assertThat(fromB1.peersSeen())
                .as("%s: pod-to-Service traffic keeps the client's address%s", distribution, all)
                .containsExactly(cluster.clientOn("b1").ipv4());
            assertThat(fromC1.allAnswered())
                .as("%s: zone-c has no server, yet is never blackholed%s", distribution, all)
                .isTrue();
            assertThat(fromC1.servers())
                .as("%s: zone-c's client is answered from the other zones%s", distribution, all)
                .isSubsetOf("a1s1", "a1s2", "a2s1", "b1s1")
                .hasSizeGreaterThan(1);
          });
      // Both modes count per node and per opted-in Service port.
      assertCountedInZone(cluster, zonal, distribution, observed);
    }
  }

  /**
   * N connections from zone-a's client on a1 show N more in a1's {@code node} and {@code zone}
   * counters and none in {@code other-zone}: the kernel's count, read by a scrape before and after.
   * For a Service that opts in, its own series count the same; one that does not has none.
   */
  private static void assertCountedInZone(
      NetnsCluster cluster, Workload workload, String distribution, boolean observed) {
    var a1 = cluster.node("a1");
    var before = cluster.metrics(a1);
    var answers = cluster.probe(cluster.clientOn("a1"), workload, "tcp", 20);
    var after = cluster.metrics(a1);

    if (observed) {
      assertThat(
              serviceConnections(before, after, workload, "node")
                  + serviceConnections(before, after, workload, "zone"))
          .as(
              "%s: the Service's own series count its 20 connections as kept in the zone",
              distribution)
          .isEqualTo(20.0);
      assertThat(serviceConnections(before, after, workload, "node"))
          .as("%s: a1's client reaches a1's servers too", distribution)
          .isPositive();
      assertThat(serviceConnections(before, after, workload, "other-zone"))
          .as("%s: and its other-zone series none", distribution)
          .isZero();
      assertThat(serviceConnections(before, after, workload, "unknown")).isZero();
    } else {
      assertThat(after)
          .as("%s: a Service that does not opt in has no series of its own", distribution)
          .doesNotContain("service=\"" + workload.name + "\"");
    }

    assertThat(answers.allAnswered()).as("%s: %s", distribution, answers).isTrue();
    assertThat(connections(before, after, "node") + connections(before, after, "zone"))
        .as("%s: a1 counts its client's 20 connections as kept in the zone", distribution)
        .isEqualTo(20.0);
    assertThat(connections(before, after, "other-zone"))
        .as("%s: and none as leaving it", distribution)
        .isZero();
    assertThat(connections(before, after, "unknown"))
        .as("%s: every zone is known", distribution)
        .isZero();
  }

  private static double serviceConnections(
      String before, String after, Workload workload, String locality) {
    var labels =
        new String[] {
          "namespace=\"" + Workload.NAMESPACE + "\"",
          "service=\"" + workload.name + "\"",
          "port=\"tcp\"",
          "locality=\"" + locality + "\""
        };
    return Metrics.value(after, "proxima_proxy_service_connections_total", labels)
        - Metrics.value(before, "proxima_proxy_service_connections_total", labels);
  }

  private static double connections(String before, String after, String locality) {
    var label = "locality=\"" + locality + "\"";
    return Metrics.value(after, "proxima_proxy_connections_total", label)
        - Metrics.value(before, "proxima_proxy_connections_total", label);
  }

  @Test
  void preferSameNodeAnswersEachNodesClientFromItsOwnNodeThenItsZoneThenAnyZoneOverUdp(
      NetnsCluster cluster) {
    var dns =
        cluster.applyHinted(
            cluster.workload("dns").distributed("PreferSameNode"),
            cluster.ready("a1s1", "a2s1", "b1s1", "c1s1"));

    Eventually.holds(
        () -> {
          for (var node : List.of("a1", "a2", "b1", "c1")) {
            var answers = cluster.probe(cluster.clientOn(node), dns, "udp", 8);
            assertThat(answers.counts())
                .as("each node's client is answered by its own node's server: %s", answers)
                .containsOnlyKeys(node + "s1");
          }
        });

    cluster.setEndpoints(dns, cluster.ready("a2s1", "b1s1", "c1s1"));
    cluster.awaitHints(dns);
    Eventually.holds(
        () -> {
          var fromA1 = cluster.probe(cluster.clientOn("a1"), dns, "udp", 8);
          assertThat(fromA1.counts())
              .as("without a server on a1, the other server in zone-a answers: %s", fromA1)
              .containsOnlyKeys("a2s1");
        });

    cluster.setEndpoints(dns, cluster.ready("b1s1", "c1s1"));
    cluster.awaitHints(dns);
    Eventually.holds(
        () -> {
          var fromA1 = cluster.probe(cluster.clientOn("a1"), dns, "udp", 20);
          assertThat(fromA1.counts())
              .as("without servers in zone-a, servers in the other zones answer: %s", fromA1)
              .containsOnlyKeys("b1s1", "c1s1");
        });
  }

  @Test
  void aServiceWithoutEndpointsRefusesConnectionsAndDatagramsAtOnce(NetnsCluster cluster) {
    var empty = cluster.workload("no-endpoints");
    cluster.apply(empty, List.of());

    Eventually.holds(
        () -> {
          var tcp = cluster.probe(cluster.clientOn("a1"), empty, "tcp", 3);
          var udp = cluster.probe(cluster.clientOn("b1"), empty, "udp", 3);
          // A timeout would show as TIMEOUT: the script gives each attempt 1-2 seconds.
          assertThat(tcp.counts()).as("TCP is rejected: %s", tcp).containsOnlyKeys(Answers.REFUSED);
          assertThat(udp.counts()).as("UDP is rejected: %s", udp).containsOnlyKeys(Answers.REFUSED);
        });

    var a1 = cluster.node("a1");
    var before = cluster.metrics(a1);
    var refused = cluster.probe(cluster.clientOn("a1"), empty, "tcp", 5);
    var after = cluster.metrics(a1);
    assertThat(refused.counts()).as("%s", refused).containsOnlyKeys(Answers.REFUSED);
    assertThat(
            Metrics.value(after, "proxima_proxy_connections_without_endpoints_total")
                - Metrics.value(before, "proxima_proxy_connections_without_endpoints_total"))
        .as("a1's kernel counts each refused attempt (a retransmitted SYN again)")
        .isBetween(5.0, 10.0);
    for (var locality : List.of("node", "zone", "other-zone", "unknown")) {
      assertThat(connections(before, after, locality))
          .as("a refused connection is dispatched nowhere: none in %s", locality)
          .isZero();
    }
  }

  @Test
  void internalTrafficPolicyLocalUsesOnlyTheNodesEndpointsAndDropsWhereThereAreNone(
      NetnsCluster cluster) {
    var local = cluster.workload("node-local");
    local.internalTrafficPolicy = "Local";
    cluster.apply(local, cluster.ready("a1s1", "a1s2", "b1s1"));

    Eventually.holds(
        () -> {
          var fromA1 = cluster.probe(cluster.clientOn("a1"), local, "tcp", 20);
          var fromA2 = cluster.probe(cluster.clientOn("a2"), local, "tcp", 2);
          var fromA2Udp = cluster.probe(cluster.clientOn("a2"), local, "udp", 2);
          var all = Answers.describe(List.of(fromA1, fromA2, fromA2Udp));
          assertThat(fromA1.servers())
              .as("a1's client reaches a1's endpoints only%s", all)
              .containsExactlyInAnyOrder("a1s1", "a1s2");
          assertThat(fromA2.counts())
              .as("a2 has no local endpoint: TCP is dropped%s", all)
              .containsOnlyKeys(Answers.TIMEOUT);
          assertThat(fromA2Udp.counts()).as("and UDP too%s", all).containsOnlyKeys(Answers.TIMEOUT);
          assertThat(internalNoLocalEndpoints(cluster, "a2"))
              .as("a2's proxy counts the Service's two ports (kube-proxy counts per port)")
              .isEqualTo(2.0);
          assertThat(internalNoLocalEndpoints(cluster, "a1"))
              .as("a1's proxy has local endpoints for it")
              .isEqualTo(0.0);
        });
  }

  private static double internalNoLocalEndpoints(NetnsCluster cluster, String node) {
    return Metrics.value(
        cluster.metrics(cluster.node(node)),
        "kubeproxy_sync_proxy_rules_no_local_endpoints_total",
        "traffic_policy=\"internal\"",
        "ip_family=\"IPv4\"");
  }

  @Test
  void nodePortWithLocalPolicyIsAnsweredOnlyByNodesWithEndpointsKeepingTheClientAddress(
      NetnsCluster cluster) {
    var web = cluster.nodePortWorkload("web-nodeport");
    web.externalTrafficPolicy = "Local";
    cluster.apply(web, cluster.ready("a1s1", "b1s1"));
    var withEndpoints = List.of(cluster.node("a1"), cluster.node("b1"));
    var without = List.of(cluster.node("a2"), cluster.node("c1"));

    Eventually.holds(
        () -> {
          for (var node : withEndpoints) {
            var answers = cluster.probeNodePort(node, web, "tcp", 4);
            var local = node.name().substring("node-".length()) + "s1";
            assertThat(answers.counts())
                .as("%s answers with its own endpoint: %s", node.name(), answers)
                .containsOnlyKeys(local);
            assertThat(answers.peersSeen())
                .as("the server sees the external client's own address: %s", answers)
                .containsExactly(Layout.EXTERNAL_V4);
            assertThat(cluster.healthCheck(node, web))
                .as("%s's health check node port", node.name())
                .isEqualTo(200);
          }
          for (var node : without) {
            var answers = cluster.probeNodePort(node, web, "tcp", 2);
            assertThat(answers.counts())
                .as("%s has no local endpoint and drops: %s", node.name(), answers)
                .containsOnlyKeys(Answers.TIMEOUT);
            assertThat(cluster.healthCheck(node, web))
                .as("%s's health check node port", node.name())
                .isEqualTo(503);
          }
        });

    web.externalTrafficPolicy = "Cluster";
    web.healthCheckNodePort = 0;
    cluster.apply(web, cluster.ready("a1s1", "b1s1"));
    Eventually.holds(
        () -> {
          for (var node : cluster.layout.nodes()) {
            var answers = cluster.probeNodePort(node, web, "tcp", 6);
            assertThat(answers.allAnswered())
                .as("with Cluster policy %s answers: %s", node.name(), answers)
                .isTrue();
            assertThat(answers.servers()).isSubsetOf("a1s1", "b1s1");
          }
        });
  }
}
