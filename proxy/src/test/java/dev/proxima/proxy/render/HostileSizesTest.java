package dev.proxima.proxy.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.SourceRanges;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.route.RouteDecision;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tenant-controlled sizes at their caps, through catalog, planner and both renderers: the work is
 * asserted by what is shared and what is written, never by wall time.
 */
class HostileSizesTest {
  private static final int RANGES = 20_000;
  private static final int PORTS = 10;

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void twentyThousandSourceRangesOnTenPortsAreReducedOncePerServiceNotPerPort(ProxyMode mode) {
    // 200 blocks of a /16 followed by 99 /24s inside it: 20,000 ranges, 200 outermost.
    var ranges = new ArrayList<String>();
    for (int i = 0; i < RANGES; i++) {
      int block = i / 100;
      ranges.add(
          i % 100 == 0 ? "11." + block + ".0.0/16" : "11." + block + "." + i % 100 + ".0/24");
    }
    var plan =
        NodePlanner.plan(
            IpFamily.IPV4,
            "node-a",
            null,
            null,
            List.of(loadBalancer(ranges)),
            List.of(slice()),
            AddressPolicy.ofNode(null),
            ZoneDemand.unknown());

    assertThat(plan.ports()).hasSize(PORTS);
    var shared = plan.ports().get(0).port().loadBalancerSourceRanges();
    assertThat(shared).isInstanceOf(SourceRanges.class).hasSize(200);
    var decision = new RouteDecision(IpFamily.IPV4, new ArrayList<>());
    for (var planned : plan.ports()) {
      // One reduced list per Service, which every port's route takes as it is.
      assertThat(planned.port().loadBalancerSourceRanges()).isSameAs(shared);
      var route =
          decision.decide(
              planned.port(), planned.endpoints(), planned.endpoints(), true, ZoneSpill.NONE);
      assertThat(route.allowedSources()).isSameAs(((SourceRanges) shared).cidrs());
    }

    var rules = render(mode, plan);

    if (mode == ProxyMode.nftables) {
      assertThat(count(rules, "\t11."))
          .as("one element per outermost range, in the one set every port's address shares")
          .isEqualTo(200L);
    } else {
      assertThat(count(rules, "-s 11."))
          .as("one rule per outermost range and port")
          .isEqualTo(200L * PORTS);
    }
  }

  private static Service loadBalancer(List<String> ranges) {
    var spec =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("tenant")
            .withName("lb")
            .endMetadata()
            .withNewSpec()
            .withType("LoadBalancer")
            .withClusterIP("10.96.0.40")
            .withLoadBalancerSourceRanges(ranges)
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("203.0.113.40")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();
    for (int p = 0; p < PORTS; p++) {
      var port = new io.fabric8.kubernetes.api.model.ServicePort();
      port.setName("p" + p);
      port.setPort(80 + p);
      port.setProtocol("TCP");
      spec.getSpec().getPorts().add(port);
    }
    return spec;
  }

  private static EndpointSlice slice() {
    var builder =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("tenant")
            .withName("lb-1")
            .withLabels(Map.of(Labels.SERVICE_NAME, "lb"))
            .endMetadata()
            .withAddressType("IPv4")
            .addNewEndpoint()
            .withAddresses("10.244.1.5")
            .withNodeName("node-b")
            .withNewConditions()
            .withReady(true)
            .endConditions()
            .endEndpoint();
    for (int p = 0; p < PORTS; p++) {
      builder.addNewPort().withName("p" + p).withPort(8080 + p).withProtocol("TCP").endPort();
    }
    return builder.build();
  }

  static String render(ProxyMode mode, NodePlanner.FamilyPlan plan) {
    var settings = RuleSettings.defaults();
    if (mode == ProxyMode.nftables) {
      return NftPlanRenderer.render(plan, settings, List.of()).script();
    }
    return IptablesRenderer.renderWithJumps(
            settings.forFamily(plan.family(), List.of(), List.of()),
            plan.ports().stream().map(NftPlanRenderer::rules).toList())
        .filterAndNat();
  }

  static long count(String text, String needle) {
    return Pattern.compile(Pattern.quote(needle)).matcher(text).results().count();
  }
}
