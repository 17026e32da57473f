package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scenarios 3, 4 and 16: how traffic spreads without hints, with Auto hints, and over IPv6. */
@ExtendWith(NetnsClusterExtension.class)
class TopologyNetnsIT {
  private static final List<String> ALL_SERVERS =
      List.of("a1s1", "a1s2", "a2s1", "a2s2", "b1s1", "b1s2", "c1s1", "c1s2");

  @Test
  void withoutTrafficDistributionEveryEndpointGetsItsShareOfTraffic(NetnsCluster cluster) {
    var spread = cluster.workload("spread");
    cluster.apply(spread, cluster.ready(ALL_SERVERS.toArray(String[]::new)));

    // 160 connections over 8 endpoints: 20 each expected, standard deviation 3.7. Each endpoint
    // must get 6 to 40; a fair split falls outside that less than once in ten thousand runs.
    Eventually.holds(
        () -> {
          var tcp = cluster.probe(cluster.clientOn("a1"), spread, "tcp", 160);
          var udp = cluster.probe(cluster.clientOn("c1"), spread, "udp", 160);
          for (var answers : List.of(tcp, udp)) {
            assertThat(answers.counts())
                .as("every endpoint answers: %s", answers)
                .containsOnlyKeys(ALL_SERVERS);
            assertThat(answers.counts().values())
                .as("each endpoint's share is within 6..40 of 160: %s", answers)
                .allSatisfy(count -> assertThat(count).isBetween(6L, 40L));
          }
        });
  }

  @Test
  void autoHintsOnABalancedClusterKeepEachZonesTrafficInThatZone(NetnsCluster cluster)
      throws Exception {
    var auto = cluster.workload("auto");
    auto.annotations.put("service.kubernetes.io/topology-mode", "Auto");
    // Every zone has 4 CPUs and 2 endpoints, so each zone is allocated exactly its own.
    cluster.applyHinted(auto, cluster.ready("a1s1", "a2s1", "b1s1", "b1s2", "c1s1", "c1s2"));

    assertThat(cluster.slice(auto).getEndpoints())
        .as("each endpoint is hinted for its own zone")
        .allSatisfy(
            endpoint ->
                assertThat(endpoint.getHints().getForZones())
                    .extracting(zone -> zone.getName())
                    .containsExactly(endpoint.getZone()));
    Eventually.holds(
        () -> {
          var fromA1 = cluster.probe(cluster.clientOn("a1"), auto, "tcp", 20);
          var fromB1 = cluster.probe(cluster.clientOn("b1"), auto, "tcp", 20);
          var fromC1 = cluster.probe(cluster.clientOn("c1"), auto, "tcp", 20);
          var all = Answers.describe(List.of(fromA1, fromB1, fromC1));
          assertThat(fromA1.servers()).as("zone-a%s", all).containsExactly("a1s1", "a2s1");
          assertThat(fromB1.servers()).as("zone-b%s", all).containsExactly("b1s1", "b1s2");
          assertThat(fromC1.servers()).as("zone-c%s", all).containsExactly("c1s1", "c1s2");
        });

    // The node's running proxy says the same of itself: the zone's endpoints, and why.
    var a1 = cluster.node("a1");
    var live =
        cluster
            .components()
            .explainLive(a1, "--service", Workload.NAMESPACE + "/auto", "-o", "json")
            .assertSucceeded();
    var report = new ObjectMapper().readTree(live.stdout());
    assertThat(report.path("node").asText()).isEqualTo(a1.name());
    assertThat(report.path("servicePorts"))
        .as(live.stdout())
        .extracting(port -> port.path("port").asText())
        .containsExactly("tcp", "udp");
    for (var port : report.path("servicePorts")) {
      assertThat(port.path("topology").asText()).as(live.stdout()).isEqualTo("PreferSameZone");
      assertThat(port.path("clusterPolicyEndpoints").toString())
          .as(live.stdout())
          .contains("\"" + cluster.pod("a1s1").ipv4() + ":")
          .contains("\"" + cluster.pod("a2s1").ipv4() + ":")
          .doesNotContain("\"" + cluster.pod("b1s1").ipv4() + ":");
    }
    assertThat(report.path("sync").path("families").get(0).path("lastFullSync").asText())
        .isNotEqualTo("null");
  }

  @Test
  void anIpv6ServiceWithPreferSameZoneStaysInZoneAndFallsBackWhereTheZoneHasNoServers(
      NetnsCluster cluster) {
    var zonal =
        cluster.applyHinted(
            cluster.workloadV6("zonal-v6").distributed("PreferSameZone"),
            cluster.ready("a1s1", "a2s1", "b1s1"));

    Eventually.holds(
        () -> {
          var fromA1 = cluster.probe(cluster.clientOn("a1"), zonal, "tcp", 20);
          var fromB1 = cluster.probe(cluster.clientOn("b1"), zonal, "udp", 10);
          var fromC1 = cluster.probe(cluster.clientOn("c1"), zonal, "tcp", 20);
          var all = Answers.describe(List.of(fromA1, fromB1, fromC1));
          assertThat(fromA1.servers())
              .as("zone-a over IPv6%s", all)
              .containsExactly("a1s1", "a2s1");
          assertThat(fromA1.peersSeen())
              .as("the server saw the client's IPv6 address%s", all)
              .containsExactly(Answers.canonical(cluster.clientOn("a1").ipv6()));
          assertThat(fromB1.servers()).as("zone-b over UDP/IPv6%s", all).containsExactly("b1s1");
          assertThat(fromC1.allAnswered()).as("zone-c is never blackholed%s", all).isTrue();
          assertThat(fromC1.servers())
              .as("zone-c falls back to every zone%s", all)
              .containsExactlyInAnyOrder("a1s1", "a2s1", "b1s1");
        });
  }
}
