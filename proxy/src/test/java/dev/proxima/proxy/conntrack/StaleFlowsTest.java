package dev.proxima.proxy.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.TopologyFallback;
import dev.proxima.proxy.selection.EndpointSelector;
import dev.proxima.proxy.selection.ZoneSpillChoice;
import java.util.List;
import org.junit.jupiter.api.Test;

class StaleFlowsTest {
  private static final String LISTING =
      """
      udp      17 25 src=10.244.9.9 dst=10.96.0.10 sport=40000 dport=53 src=10.244.1.5 dst=10.244.9.9 sport=53 dport=40000 mark=0 use=1
      udp      17 25 src=10.244.9.9 dst=10.96.0.10 sport=40001 dport=53 src=10.244.2.5 dst=10.244.9.9 sport=53 dport=40001 [ASSURED] mark=0 use=1
      udp      17 29 src=10.244.9.9 dst=10.96.0.20 sport=40002 dport=53 [UNREPLIED] src=10.96.0.20 dst=10.244.9.9 sport=53 dport=40002 mark=0 use=1
      udp      17 25 src=192.0.2.1 dst=192.168.0.11 sport=40003 dport=30053 src=10.244.2.5 dst=192.0.2.1 sport=53 dport=40003 mark=0 use=1
      tcp      6 431999 ESTABLISHED src=10.244.9.9 dst=10.96.0.10 sport=50000 dport=53 src=10.244.2.5 dst=10.244.9.9 sport=53 dport=50000 [ASSURED] mark=0 use=1
      conntrack v1.4.7 (conntrack-tools): 5 flow entries have been shown.
      """;

  private static NodePlanner.PlannedPort udp(
      String name, String clusterIp, int nodePort, List<Endpoint> endpoints) {
    var port =
        new ServicePort(
            new ServicePortName(new ObjectKey("kube-system", name), "dns", Protocol.UDP),
            clusterIp,
            53,
            nodePort,
            List.of(),
            List.of(),
            List.of(),
            false,
            null,
            false,
            false,
            0,
            null,
            null,
            false,
            null);
    return new NodePlanner.PlannedPort(
        port,
        endpoints,
        EndpointSelector.select(endpoints, port, "n", null),
        TopologyFallback.NONE,
        ZoneDemand.unknown(),
        ZoneSpillChoice.OFF);
  }

  private static Endpoint serving(String ip) {
    return new Endpoint(ip, 53, true, true, false, "n", false, null, null, null);
  }

  @Test
  void parsesUdpFlowsAndSkipsTheRest() {
    assertThat(StaleFlows.parse(LISTING))
        .containsExactly(
            new StaleFlows.UdpFlow("10.96.0.10", 53, "10.244.1.5"),
            new StaleFlows.UdpFlow("10.96.0.10", 53, "10.244.2.5"),
            new StaleFlows.UdpFlow("10.96.0.20", 53, "10.96.0.20"),
            new StaleFlows.UdpFlow("192.168.0.11", 30053, "10.244.2.5"));
  }

  @Test
  void flowsToARemovedEndpointAndPastANowServedServiceAreStale() {
    var ports =
        List.of(
            udp("dns", "10.96.0.10", 30053, List.of(serving("10.244.1.5"))),
            udp("fresh", "10.96.0.20", 0, List.of(serving("10.244.3.5"))));

    var deletions = StaleFlows.find(StaleFlows.parse(LISTING), ports, List.of());

    assertThat(deletions)
        .containsExactlyInAnyOrder(
            new StaleFlows.Deletion("10.96.0.10", 0, "10.244.2.5"),
            new StaleFlows.Deletion("10.96.0.20", 0, "10.96.0.20"),
            new StaleFlows.Deletion(null, 30053, "10.244.2.5"));
  }

  @Test
  void aServingTerminatingEndpointKeepsItsFlows() {
    var terminating =
        new Endpoint("10.244.2.5", 53, false, true, true, "n", false, null, null, null);
    var ports = List.of(udp("dns", "10.96.0.10", 0, List.of(serving("10.244.1.5"), terminating)));

    assertThat(StaleFlows.find(StaleFlows.parse(LISTING), ports, List.of())).isEmpty();
  }

  @Test
  void aServiceScaledToZeroLosesEveryFlowSoTheRejectRuleAnswers() {
    var ports = List.of(udp("dns", "10.96.0.10", 30053, List.of()));

    assertThat(StaleFlows.find(StaleFlows.parse(LISTING), ports, List.of()))
        .containsExactlyInAnyOrder(
            new StaleFlows.Deletion("10.96.0.10", 0, "10.244.1.5"),
            new StaleFlows.Deletion("10.96.0.10", 0, "10.244.2.5"),
            new StaleFlows.Deletion(null, 30053, "10.244.2.5"));
  }

  @Test
  void aDeletedServicesFlowsAreStaleEvenToEndpointsThatStillRun() {
    var before =
        List.of(
            udp("dns", "10.96.0.10", 30053, List.of(serving("10.244.1.5"), serving("10.244.2.5"))),
            udp("fresh", "10.96.0.20", 0, List.of(serving("10.244.3.5"))));
    var after = List.of(udp("fresh", "10.96.0.20", 0, List.of(serving("10.244.3.5"))));

    assertThat(StaleFlows.find(StaleFlows.parse(LISTING), after, before))
        .containsExactlyInAnyOrder(
            new StaleFlows.Deletion("10.96.0.20", 0, "10.96.0.20"),
            new StaleFlows.Deletion("10.96.0.10", 0, "10.244.1.5"),
            new StaleFlows.Deletion("10.96.0.10", 0, "10.244.2.5"),
            new StaleFlows.Deletion(null, 30053, "10.244.2.5"));
  }

  @Test
  void withoutAPreviousPlanAsAfterARestartFlowsToServingEndpointsAreKept() {
    var ports =
        List.of(
            udp("dns", "10.96.0.10", 30053, List.of(serving("10.244.1.5"), serving("10.244.2.5"))));

    assertThat(StaleFlows.find(StaleFlows.parse(LISTING), ports, List.of())).isEmpty();
  }
}
