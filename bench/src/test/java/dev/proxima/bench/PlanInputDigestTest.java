package dev.proxima.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PlanInputDigestTest {
  private final SyntheticCluster cluster = new SyntheticCluster(3, 3, "PreferSameZone");
  private final PlanInputDigest digests = new PlanInputDigest();

  private String service(Consumer<Service> change) {
    var service = cluster.service(1);
    change.accept(service);
    return HexFormat.of().formatHex(digests.service(service));
  }

  private String slice(Consumer<EndpointSlice> change) {
    var slice = cluster.hintedSlices().get(1);
    change.accept(slice);
    return HexFormat.of().formatHex(digests.slice(slice));
  }

  private String basis(Consumer<Node> change, String settings) {
    var node = cluster.nodes().get(0);
    change.accept(node);
    return HexFormat.of()
        .formatHex(
            digests.basis(IpFamily.IPV4, SyntheticCluster.PROXY_NODE, node, null, settings, "b1"));
  }

  @Test
  void equalInputsBuiltSeparatelyHaveEqualDigests() {
    assertThat(service(s -> {})).isEqualTo(service(s -> {}));
    assertThat(slice(s -> {})).isEqualTo(slice(s -> {}));
    assertThat(basis(n -> {}, "settings")).isEqualTo(basis(n -> {}, "settings"));
  }

  @Test
  void labelsAndAnnotationsInAnotherOrderDigestTheSame() {
    var a = service(s -> s.getMetadata().setLabels(Map.of("a", "1", "b", "2", "c", "3")));
    var b =
        service(
            s -> {
              var labels = new java.util.LinkedHashMap<String, String>();
              labels.put("c", "3");
              labels.put("a", "1");
              labels.put("b", "2");
              s.getMetadata().setLabels(labels);
            });
    assertThat(a).isEqualTo(b);
  }

  @Test
  void everyServiceFieldThePlannerReadsChangesTheDigest() {
    var unchanged = service(s -> {});
    List<Consumer<Service>> changes =
        List.of(
            s -> s.getSpec().setClusterIPs(List.of("10.96.0.99")),
            s -> s.getSpec().getPorts().get(0).setPort(81),
            s -> s.getSpec().getPorts().get(0).setProtocol("UDP"),
            s -> s.getSpec().getPorts().get(0).setName("https"),
            s -> s.getSpec().getPorts().get(0).setNodePort(30080),
            s -> s.getSpec().setTrafficDistribution(null),
            s -> s.getSpec().setInternalTrafficPolicy("Local"),
            s -> s.getSpec().setExternalTrafficPolicy("Local"),
            s -> s.getSpec().setSessionAffinity("ClientIP"),
            s -> s.getSpec().setExternalIPs(List.of("192.0.2.1")),
            s -> s.getSpec().setLoadBalancerSourceRanges(List.of("192.0.2.0/24")),
            s -> s.getSpec().setHealthCheckNodePort(31000),
            s -> s.getSpec().setType("ExternalName"),
            s -> s.getMetadata().setLabels(Map.of(Labels.SERVICE_PROXY_NAME, "other")),
            s -> s.getMetadata().setAnnotations(Map.of(Annotations.OBSERVE_LOCALITY, "true")),
            s -> s.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z"),
            s -> s.getMetadata().setUid("another"),
            s ->
                s.setStatus(
                    new io.fabric8.kubernetes.api.model.ServiceStatusBuilder()
                        .withNewLoadBalancer()
                        .withIngress(
                            new LoadBalancerIngressBuilder()
                                .withIp("192.0.2.7")
                                .withIpMode("Proxy")
                                .build())
                        .endLoadBalancer()
                        .build()));
    assertThat(changes.stream().map(this::service).toList())
        .doesNotContain(unchanged)
        .doesNotHaveDuplicates();
  }

  @Test
  void endpointConditionsHintsAndPlacementChangeTheSliceDigest() {
    var unchanged = slice(s -> {});
    List<Consumer<EndpointSlice>> changes =
        List.of(
            s -> s.getEndpoints().get(0).getConditions().setReady(false),
            // Unset is read as true for ready: a third value, not the same as true or false.
            s -> s.getEndpoints().get(0).getConditions().setReady(null),
            s -> s.getEndpoints().get(0).getConditions().setServing(false),
            s -> s.getEndpoints().get(0).getConditions().setTerminating(true),
            s -> s.getEndpoints().get(0).setHints(null),
            s ->
                s.getEndpoints()
                    .get(0)
                    .setHints(new EndpointHintsBuilder().addNewForZone("zone-b").build()),
            s ->
                s.getEndpoints()
                    .get(0)
                    .setHints(
                        new EndpointHintsBuilder()
                            .addNewForZone("zone-a")
                            .addNewForNode("pb8-node")
                            .build()),
            s -> s.getEndpoints().get(0).setZone("zone-c"),
            s -> s.getEndpoints().get(0).setNodeName(SyntheticCluster.PROXY_NODE),
            s -> s.getEndpoints().get(0).setAddresses(List.of("10.128.9.9")),
            s -> s.getEndpoints().remove(2),
            s -> s.getPorts().get(0).setPort(9090),
            s -> s.setAddressType("IPv6"),
            s -> s.getMetadata().setLabels(Map.of(Labels.SERVICE_NAME, "svc-2")));
    assertThat(changes.stream().map(this::slice).toList())
        .doesNotContain(unchanged)
        .doesNotHaveDuplicates();
  }

  @Test
  void theNodesZoneAddressesAndTheSettingsChangeTheBasis() {
    var unchanged = basis(n -> {}, "settings");
    assertThat(
            List.of(
                basis(n -> n.getMetadata().setLabels(Map.of(Labels.ZONE, "zone-b")), "settings"),
                basis(n -> n.getMetadata().setLabels(Map.of()), "settings"),
                basis(
                    n -> {
                      var addresses = new ArrayList<>(n.getStatus().getAddresses());
                      addresses.add(
                          new NodeAddressBuilder()
                              .withType("ExternalIP")
                              .withAddress("192.0.2.9")
                              .build());
                      n.getStatus().setAddresses(addresses);
                    },
                    "settings"),
                basis(n -> {}, "other settings")))
        .doesNotContain(unchanged)
        .doesNotHaveDuplicates();
  }

  @Test
  void absentEmptyAndBlankAreThreeValues() {
    assertThat(
            List.of(
                service(s -> s.getSpec().setExternalIPs(null)),
                service(s -> s.getSpec().setExternalIPs(List.of())),
                service(s -> s.getSpec().setExternalIPs(List.of(""))),
                service(s -> s.getSpec().setExternalIPs(List.of("", "")))))
        .doesNotHaveDuplicates();
  }

  @Test
  void textThatIsNotAsciiIsDigestedByItsUtf8Bytes() {
    assertThat(
            List.of(
                service(s -> s.getMetadata().setLabels(Map.of("team", "é"))),
                service(s -> s.getMetadata().setLabels(Map.of("team", "e"))),
                service(s -> s.getMetadata().setLabels(Map.of("team", "Ã©")))))
        .doesNotHaveDuplicates();
  }

  @Test
  void aServicesJoinedDigestIgnoresSliceOrderButNotASliceChange() {
    var basis = digests.basis(IpFamily.IPV4, "n", null, null, "s", "b");
    var service = cluster.service(0);
    var first = cluster.slice(0);
    var second = cluster.slice(0);
    second.getMetadata().setName("svc-0-second");
    second.getEndpoints().get(0).setAddresses(List.of("10.128.7.7"));
    var inOrder = digests.of(basis, service, List.of(first, second));
    var reversed = digests.of(basis, service, List.of(second, first));
    var oneGone = digests.of(basis, service, List.of(first));
    second.getEndpoints().get(0).getConditions().setReady(false);
    var changed = digests.of(basis, service, List.of(first, second));
    var otherBasis =
        digests.of(
            digests.basis(IpFamily.IPV4, "n", null, null, "s", "b2"),
            service,
            List.of(first, second));
    assertThat(inOrder).isEqualTo(reversed);
    assertThat(List.of(hex(inOrder), hex(oneGone), hex(changed), hex(otherBasis)))
        .doesNotHaveDuplicates();
  }

  private static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }
}
