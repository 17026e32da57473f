package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.testing.ApiObjects;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which Services each family plans: a family leaves out, cheaply, the Services with no cluster IP
 * of its own, and plans every other one as before, whichever field or position holds the address.
 */
class NodePlannerFamilyTest {
  private static final Node NODE = ClusterObjects.node("node-a", "zone-a");

  /** A Service {@code shop/<name>} with one TCP port 80; clusterIP is the first of the list. */
  private static Service service(String name, String... clusterIps) {
    return ApiObjects.service("shop", name, clusterIps[0]).clusterIps(clusterIps).build();
  }

  /** The slice of one family of {@code shop/<service>}: one ready endpoint on node-a. */
  private static EndpointSlice slice(String service, String addressType, String address) {
    var slice = ApiObjects.sliceOnNode("shop", service, "node-a", address);
    slice.getMetadata().setName(service + "-" + addressType.toLowerCase());
    slice.setAddressType(addressType);
    return slice;
  }

  private static final List<Service> SERVICES =
      List.of(
          service("dual", "10.96.0.1", "fd00:96::1"),
          service("dual-v6-first", "fd00:96::2", "10.96.0.2"),
          service("v6-only", "fd00:96::3"),
          // Written before spec.clusterIPs existed: only spec.clusterIP is set.
          ApiObjects.service("shop", "v6-legacy", "fd00:96::4").build(),
          service("v4-only", "10.96.0.5"),
          service("headless", "None"));

  private static final List<EndpointSlice> SLICES =
      List.of(
          slice("dual", "IPv4", "10.244.1.1"),
          slice("dual", "IPv6", "fd00:244::1"),
          slice("dual-v6-first", "IPv4", "10.244.1.2"),
          slice("dual-v6-first", "IPv6", "fd00:244::2"),
          slice("v6-only", "IPv6", "fd00:244::3"),
          slice("v6-legacy", "IPv6", "fd00:244::4"),
          slice("v4-only", "IPv4", "10.244.1.5"));

  private static List<String> planned(NodePlanner.FamilyPlan plan) {
    return plan.ports().stream()
        .map(
            p ->
                p.port().name().service().name()
                    + " "
                    + p.port().clusterIp()
                    + " -> "
                    + p.endpoints().stream().map(Endpoint::ip).toList())
        .toList();
  }

  @Test
  void theIpv6FamilyPlansDualStackAndIpv6OnlyServicesWithTheirIpv6Addresses() {
    var plan =
        NodePlanner.planClaims(
            IpFamily.IPV6,
            "node-a",
            NODE,
            null,
            SERVICES,
            SLICES,
            AddressPolicy.ofNode(NODE),
            ZoneDemand.unknown());

    assertThat(planned(plan))
        .containsExactly(
            "dual fd00:96::1 -> [fd00:244::1]",
            "dual-v6-first fd00:96::2 -> [fd00:244::2]",
            "v6-legacy fd00:96::4 -> [fd00:244::4]",
            "v6-only fd00:96::3 -> [fd00:244::3]");
    assertThat(plan.skipped())
        .as("a Service skipped for a reason is still listed in both families")
        .containsExactly("shop/headless: headless: no ClusterIP to proxy");
    assertThat(plan.warnings()).isEmpty();
  }

  @Test
  void theIpv4FamilyPlansDualStackAndIpv4OnlyServicesWithTheirIpv4Addresses() {
    var plan =
        NodePlanner.planClaims(
            IpFamily.IPV4,
            "node-a",
            NODE,
            null,
            SERVICES,
            SLICES,
            AddressPolicy.ofNode(NODE),
            ZoneDemand.unknown());

    assertThat(planned(plan))
        .containsExactly(
            "dual 10.96.0.1 -> [10.244.1.1]",
            "dual-v6-first 10.96.0.2 -> [10.244.1.2]",
            "v4-only 10.96.0.5 -> [10.244.1.5]");
    assertThat(plan.skipped()).containsExactly("shop/headless: headless: no ClusterIP to proxy");
  }

  @Test
  void aServiceWithNoAddressOfTheFamilyPlansNothingThereAlone() {
    var v4 = SERVICES.get(4);

    var plan =
        NodePlanner.planServiceClaims(
            IpFamily.IPV6,
            "node-a",
            NODE,
            null,
            v4,
            SLICES.subList(6, 7),
            AddressPolicy.ofNode(NODE),
            ZoneDemand.unknown());

    assertThat(plan.ports()).isEmpty();
    assertThat(plan.skipped()).isEmpty();
    assertThat(plan.warnings()).isEmpty();
  }
}
