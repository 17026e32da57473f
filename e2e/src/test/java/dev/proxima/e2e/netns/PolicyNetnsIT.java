package dev.proxima.e2e.netns;

import static dev.proxima.e2e.netns.Workload.PodState.servingTerminating;
import static dev.proxima.e2e.netns.Workload.PodState.stoppedTerminating;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scenarios 8 to 11: session affinity, terminating endpoints, hairpin, UDP conntrack. */
@ExtendWith(NetnsClusterExtension.class)
class PolicyNetnsIT {
  @Test
  void sessionAffinityClientIpKeepsAClientOnOneEndpointUntilTheTimeoutExpires(
      NetnsCluster cluster) {
    var sticky = cluster.workload("sticky");
    sticky.affinityTimeoutSeconds = 2;
    cluster.apply(sticky, cluster.ready("a1s1", "a2s1", "b1s1", "c1s1"));
    var client = cluster.clientOn("a2");

    var first = cluster.probe(client, sticky, "tcp", 20);
    assertThat(first.allAnswered()).as("%s", first).isTrue();
    assertThat(first.servers())
        .as("one endpoint for all of one client's connections: %s", first)
        .hasSize(1);
    var chosen = first.servers().iterator().next();

    // Idle past the timeout, the client is balanced afresh; with four endpoints a new choice
    // differs from the old one three times in four.
    await("a connection after the affinity timeout lands elsewhere")
        .pollDelay(Duration.ofMillis(2500))
        .pollInterval(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(60))
        .until(() -> !cluster.probe(client, sticky, "tcp", 1).servers().contains(chosen));
  }

  @Test
  void withoutReadyEndpointsTrafficGoesToServingTerminatingOnes(NetnsCluster cluster) {
    var draining = cluster.workload("draining");
    var a1s1 = cluster.pod("a1s1");
    var b1s1 = cluster.pod("b1s1");
    var c1s1 = cluster.pod("c1s1");
    cluster.apply(draining, List.of(Workload.PodState.ready(c1s1), servingTerminating(a1s1)));
    Eventually.holds(
        () -> {
          var answers = cluster.probe(cluster.clientOn("a2"), draining, "tcp", 10);
          assertThat(answers.counts())
              .as("while a ready endpoint exists, only it is used: %s", answers)
              .containsOnlyKeys("c1s1");
        });

    cluster.setEndpoints(
        draining,
        List.of(servingTerminating(a1s1), servingTerminating(b1s1), stoppedTerminating(c1s1)));
    Eventually.holds(
        () -> {
          var answers = cluster.probe(cluster.clientOn("a2"), draining, "tcp", 20);
          assertThat(answers.counts())
              .as("no ready endpoint left: the serving terminating ones answer: %s", answers)
              .containsOnlyKeys("a1s1", "b1s1");
        });
  }

  @Test
  void aServerReachesItselfThroughItsOwnService(NetnsCluster cluster) {
    var self = cluster.workload("hairpin");
    cluster.apply(self, cluster.ready("a1s1"));
    var server = cluster.pod("a1s1");

    Eventually.holds(
        () -> {
          var tcp = cluster.probe(server, self, "tcp", 5);
          var udp = cluster.probe(server, self, "udp", 5);
          assertThat(tcp.counts()).as("hairpin TCP: %s", tcp).containsOnlyKeys("a1s1");
          assertThat(udp.counts()).as("hairpin UDP: %s", udp).containsOnlyKeys("a1s1");
        });
  }

  @Test
  void aUdpFlowToARemovedEndpointMovesToARemainingOne(NetnsCluster cluster) {
    var dns = cluster.workload("udp-flow");
    cluster.apply(dns, cluster.ready("a1s1", "b1s1"));

    try (var session = cluster.session(cluster.clientOn("a2"), dns, "udp")) {
      var first = session.ask();
      assertThat(first.answered()).as("%s: %s", session, first).isTrue();
      for (int i = 0; i < 3; i++) {
        assertThat(session.ask().server()).as("one flow, one endpoint").isEqualTo(first.server());
      }
      var remaining = first.server().equals("a1s1") ? "b1s1" : "a1s1";

      // The removed server still runs and would keep answering a stale conntrack entry.
      cluster.setEndpoints(dns, cluster.ready(remaining));

      Eventually.holds(
          () ->
              assertThat(session.ask().server())
                  .as("%s after %s was removed", session, first.server())
                  .isEqualTo(remaining));
    }
  }
}
