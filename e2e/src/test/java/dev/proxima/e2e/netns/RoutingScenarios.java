package dev.proxima.e2e.netns;

import static dev.proxima.e2e.netns.Workload.PodState.ready;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
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
abstract class RoutingScenarios {
  abstract ProxyMode mode();

  @BeforeAll
  void runProxiesInThisMode(NetnsCluster cluster) {
    cluster.useMode(mode());
  }

  static List<Workload.PodState> ready(NetnsCluster cluster, String... pods) {
    return Arrays.stream(pods).map(cluster::pod).map(Workload.PodState::ready).toList();
  }

  @Test
  void preferSameZoneAndPreferCloseKeepTrafficInZoneAndFallBackWhereTheZoneHasNoServers(
      NetnsCluster cluster) {
    for (var distribution : List.of("PreferSameZone", "PreferClose")) {
      var zonal = cluster.workload("zonal-" + distribution.toLowerCase());
      zonal.trafficDistribution = distribution;
      cluster.apply(zonal, ready(cluster, "a1s1", "a1s2", "a2s1", "b1s1"));
      cluster.awaitHints(zonal);

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
            assertThat(fromC1.allAnswered())
                .as("%s: zone-c has no server, yet is never blackholed%s", distribution, all)
                .isTrue();
            assertThat(fromC1.servers())
                .as("%s: zone-c's client is answered from the other zones%s", distribution, all)
                .isSubsetOf("a1s1", "a1s2", "a2s1", "b1s1")
                .hasSizeGreaterThan(1);
          });
    }
  }
}
