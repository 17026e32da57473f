package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFile;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.selection.ZoneSpillChoice;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code explain} tells an operator about one node: the addresses of each Service port, and
 * per traffic source the endpoints it reaches or that it is dropped, and why.
 */
class ExplainReportTest {
  /**
   * An ingress load balancer with externalTrafficPolicy Local, its two pods on node-a and node-b,
   * and a ClusterIP Service whose slice has zone hints.
   */
  private static final String STATE =
      """
      apiVersion: v1
      kind: Node
      metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-a}}
      ---
      apiVersion: v1
      kind: Node
      metadata: {name: node-c, labels: {topology.kubernetes.io/zone: zone-a}}
      ---
      apiVersion: v1
      kind: Service
      metadata: {name: ingress, namespace: edge}
      spec:
        type: LoadBalancer
        clusterIP: 10.96.0.30
        externalTrafficPolicy: Local
        healthCheckNodePort: 32001
        externalIPs: [192.0.2.7]
        ports: [{name: https, port: 443, nodePort: 30443}]
      status: {loadBalancer: {ingress: [{ip: 203.0.113.5}]}}
      ---
      apiVersion: discovery.k8s.io/v1
      kind: EndpointSlice
      metadata: {name: ingress-1, namespace: edge, labels: {kubernetes.io/service-name: ingress}}
      addressType: IPv4
      ports: [{name: https, port: 8443, protocol: TCP}]
      endpoints:
      - {addresses: [10.244.1.5], nodeName: node-a, conditions: {ready: true}}
      - {addresses: [10.244.2.5], nodeName: node-b, conditions: {ready: true}}
      ---
      apiVersion: v1
      kind: Service
      metadata: {name: web, namespace: shop}
      spec:
        clusterIP: 10.96.0.20
        trafficDistribution: PreferSameZone
        ports: [{name: http, port: 80}]
      ---
      apiVersion: discovery.k8s.io/v1
      kind: EndpointSlice
      metadata: {name: web-1, namespace: shop, labels: {kubernetes.io/service-name: web}}
      addressType: IPv4
      ports: [{name: http, port: 8080, protocol: TCP}]
      endpoints:
      - {addresses: [10.244.1.20], nodeName: node-a, conditions: {ready: true}, hints: {forZones: [{name: zone-a}]}}
      - {addresses: [10.244.2.20], nodeName: node-b, conditions: {ready: true}, hints: {forZones: [{name: zone-b}]}}
      """;

  private static List<NodePlanner.FamilyPlan> plans(String node) throws Exception {
    ClusterState state =
        StateFile.load(
            new ByteArrayInputStream(STATE.getBytes(StandardCharsets.UTF_8)), "state.yaml");
    var self =
        state.nodes().stream().filter(n -> n.getMetadata().getName().equals(node)).findFirst();
    return List.of(
        NodePlanner.plan(
            IpFamily.IPV4,
            node,
            self.orElseThrow(),
            null,
            state.services(),
            state.endpointSlices(),
            AddressPolicy.ofNode(self.orElseThrow()),
            ZoneDemand.unknown()));
  }

  private static String block(String report, String header) {
    int start = report.indexOf(header);
    assertThat(start).as("report has " + header + ":\n" + report).isNotNegative();
    int end = report.indexOf("\n\n", start);
    return report.substring(start, end < 0 ? report.length() : end + 1);
  }

  @Test
  void externalTrafficToALocalServiceOnANodeWithoutItsPodsIsShownAsDropped() throws Exception {
    var text = ExplainReport.text(plans("node-c"));

    assertThat(block(text, "edge/ingress port https/TCP"))
        .isEqualTo(
            """
            edge/ingress port https/TCP  trafficDistribution=<none>  topology=None
              addresses:      clusterIP 10.96.0.30:443, nodePort 30443, loadBalancer 203.0.113.5:443, externalIP 192.0.2.7:443, healthCheckNodePort 32001
              pods and this node -> clusterIP 10.96.0.30:443 (internalTrafficPolicy Cluster)
                -> 10.244.1.5:8443, 10.244.2.5:8443 (the Cluster policy's list)
              external clients -> nodePort 30443, loadBalancer 203.0.113.5:443, externalIP 192.0.2.7:443 (externalTrafficPolicy Local)
                -> DROPPED: this node has no ready or serving-terminating endpoint of the Service (its endpoints are on other nodes); the load balancer's health check on port 32001 reports this node unhealthy, so it should send none
              pods and this node -> nodePort 30443, loadBalancer 203.0.113.5:443, externalIP 192.0.2.7:443 (externalTrafficPolicy Local does not apply to traffic from inside the cluster)
                -> 10.244.1.5:8443, 10.244.2.5:8443 (the Cluster policy's list)
              Cluster policy: 10.244.1.5:8443, 10.244.2.5:8443
              Local policy:   (none on this node)
              reachable:      10.244.1.5:8443, 10.244.2.5:8443
              why:            no ready endpoint has topology hints; using all 2 ready endpoints; Local list: none, no ready or serving-terminating endpoint on this node
            """);
  }

  @Test
  void externalTrafficToALocalServiceUsesTheNodesOwnPods() throws Exception {
    var text = ExplainReport.text(plans("node-a"));

    assertThat(block(text, "edge/ingress port https/TCP"))
        .contains(
            "  external clients -> nodePort 30443, loadBalancer 203.0.113.5:443, externalIP"
                + " 192.0.2.7:443 (externalTrafficPolicy Local)\n"
                + "    -> 10.244.1.5:8443 (the endpoints on this node)\n")
        .contains("  Local policy:   10.244.1.5:8443\n");
  }

  @Test
  void theClusterPolicyListIsLabelledAsTopologyFiltered() throws Exception {
    var text = ExplainReport.text(plans("node-a"));

    assertThat(block(text, "shop/web port http/TCP"))
        .contains("  addresses:      clusterIP 10.96.0.20:80\n")
        .contains("  Cluster policy: 10.244.1.20:8080 (filtered by topology: PreferSameZone)\n")
        .contains("  Local policy:   (not used)\n")
        .doesNotContain("external clients");
  }

  @Test
  void jsonNamesTheAddressesAndADroppedPathWithAnEmptyLocalList() throws Exception {
    JsonNode rows = new ObjectMapper().readTree(ExplainReport.json(plans("node-c")));
    JsonNode ingress = rows.get(0);

    assertThat(ingress.get("service").asText()).isEqualTo("edge/ingress");
    assertThat(ingress.get("addresses").toString())
        .isEqualTo(
            "{\"clusterIP\":\"10.96.0.30\",\"port\":443,\"nodePort\":30443,"
                + "\"loadBalancerIPs\":[\"203.0.113.5\"],\"externalIPs\":[\"192.0.2.7\"],"
                + "\"healthCheckNodePort\":32001,\"loadBalancerSourceRanges\":null}");
    assertThat(ingress.get("localPolicyEndpoints").toString())
        .as("used but empty, not null (null is a list the Service does not use)")
        .isEqualTo("[]");
    var external = ingress.get("traffic").get(1);
    assertThat(external.get("from").asText()).isEqualTo("external");
    assertThat(external.get("policy").asText()).isEqualTo("Local");
    assertThat(external.get("verdict").asText()).isEqualTo("dropped");
    assertThat(external.get("endpoints")).isEmpty();
    assertThat(ingress.get("traffic").get(2).get("verdict").asText())
        .isEqualTo("clusterPolicyEndpoints");
    assertThat(rows.get(1).get("localPolicyEndpoints").isNull()).isTrue();
  }

  @Test
  void aServiceWithoutEndpointsIsRejectedOnEveryPath() throws Exception {
    var plans = plans("node-a");
    var ingress = plans.get(0).ports().get(0);
    var withoutEndpoints =
        new NodePlanner.PlannedPort(
            ingress.port(),
            List.of(),
            dev.proxima.proxy.selection.EndpointSelector.select(
                List.of(), ingress.port(), "node-a", "zone-a"),
            TopologyFallback.NONE,
            ZoneDemand.unknown(),
            ZoneSpillChoice.OFF);

    var paths = TrafficPaths.of(IpFamily.IPV4, withoutEndpoints).paths();

    assertThat(paths)
        .extracting(TrafficPaths.Path::verdict)
        .containsOnly(dev.proxima.proxy.route.Verdict.REJECT);
    assertThat(paths.get(0).why()).startsWith("REJECTED: the Service has no ready");
  }
}
