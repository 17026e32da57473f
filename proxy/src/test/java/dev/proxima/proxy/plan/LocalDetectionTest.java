package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** NodeCIDR without the Node's pod CIDRs falls back to the best mode the settings allow. */
class LocalDetectionTest {
  private static RuleSettings nodeCidr(String clusterCidr, String bridge, String prefix) {
    return new RuleSettings(
            clusterCidr.isEmpty() ? List.of() : List.of(clusterCidr), false, 14, List.of())
        .withDetectLocal(DetectLocalMode.NODE_CIDR, bridge, prefix);
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        // cluster CIDR, bridge, prefix, Node's podCIDRs, effective mode, local CIDRs, interface
        Arguments.of("", "", "", List.of("10.244.1.0/24"), "NodeCIDR", "10.244.1.0/24", null),
        Arguments.of("10.0.0.0/8", "", "veth", List.of(), "ClusterCIDR", "10.0.0.0/8", null),
        Arguments.of("", "cbr0", "veth", List.of(), "InterfaceNamePrefix", "", "veth"),
        Arguments.of("", "cbr0", "", List.of(), "BridgeInterface", "", "cbr0"),
        Arguments.of("", "", "", List.of(), "None", "", null),
        // pod CIDRs of the other family only: no pods of this family, nothing missing
        Arguments.of("10.0.0.0/8", "", "", List.of("fd00:1::/64"), "NodeCIDR", "", null),
        // a cluster CIDR of the other family does not help this one
        Arguments.of("fd00::/48", "", "", List.of(), "None", "", null),
        // an invalid prefix from the Node's point of view is skipped, not fatal
        Arguments.of("", "", "bad name!", List.of("not-a-cidr"), "None", "", null));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void nodeCidrUsesThePodCidrsOrTheBestFallback(
      String clusterCidr,
      String bridge,
      String prefix,
      List<String> podCidrs,
      String effective,
      String localCidrs,
      String podInterface) {
    var detection =
        LocalDetection.of(nodeCidr(clusterCidr, bridge, prefix), IpFamily.IPV4, podCidrs);

    assertThat(detection.effectiveName()).isEqualTo(effective);
    assertThat(String.join(",", detection.localCidrs())).isEqualTo(localCidrs);
    assertThat(detection.podInterface() == null ? null : detection.podInterface().name())
        .isEqualTo(podInterface);
    assertThat(detection.degraded()).isEqualTo(!effective.equals("NodeCIDR"));
  }

  @Test
  void aFallbackSaysWhatIsMissing() {
    var detection = LocalDetection.of(nodeCidr("", "", ""), IpFamily.IPV4, List.of());

    assertThat(detection.describe())
        .isEqualTo(
            "None (no local-traffic detection); NodeCIDR is configured but the Node has no"
                + " spec.podCIDRs, and neither --cluster-cidr of this family nor"
                + " --pod-interface-name-prefix nor --pod-bridge-interface is set");
  }

  @Test
  void theOtherModesAreUsedAsConfigured() {
    var settings = new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of());

    var detection = LocalDetection.of(settings, IpFamily.IPV4, List.of("10.244.1.0/24"));

    assertThat(detection.effective()).isEqualTo(DetectLocalMode.CLUSTER_CIDR);
    assertThat(detection.localCidrs()).containsExactly("10.0.0.0/8");
    assertThat(detection.degraded()).isFalse();
    assertThat(detection.describe()).isEqualTo("ClusterCIDR 10.0.0.0/8");
  }
}
