package dev.proxima.proxy.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceCatalogTest {
  private static final ServiceCatalog.Options NODE_A =
      new ServiceCatalog.Options("node-a", IpFamily.IPV4, null, null);

  private static ServiceBuilder service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP("10.96.0.10")
        .withClusterIPs("10.96.0.10", "fd00:96::10")
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec();
  }

  private static EndpointSliceBuilder slice(String name, String service, String addressType) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(Map.of(Labels.SERVICE_NAME, service))
        .endMetadata()
        .withAddressType(addressType)
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort();
  }

  private static EndpointBuilder endpoint(String ip, String node) {
    return new EndpointBuilder().withAddresses(ip).withNodeName(node);
  }

  @Test
  void aCreationTimestampIsReadAndAnUnreadableOneIsUnknown() {
    var dated = service("dated").editMetadata().withCreationTimestamp("2026-11-28T20:26:10Z");
    var undated = service("undated").editMetadata().withCreationTimestamp("yesterday");

    var entries =
        ServiceCatalog.build(
                List.of(dated.endMetadata().build(), undated.endMetadata().build()),
                List.of(),
                NODE_A)
            .entries();

    assertThat(entries)
        .extracting(entry -> entry.port().origin().created())
        .containsExactly(Instant.ofEpochSecond(1_795_897_570L), null);
  }

  @Test
  void parsesPortsEndpointsConditionsHintsAndLocality() {
    var svc = service("web").build();
    var eps =
        slice("web-1", "web", "IPv4")
            .addToEndpoints(
                endpoint("10.244.1.5", "node-a")
                    .withNewConditions()
                    .withReady(true)
                    .endConditions()
                    .withNewHints()
                    .withForZones(new ForZone("zone-a"))
                    .endHints()
                    .build(),
                endpoint("10.244.2.5", "node-b")
                    .withNewConditions()
                    .withReady(false)
                    .withServing(true)
                    .withTerminating(true)
                    .endConditions()
                    .build())
            .build();

    var result = ServiceCatalog.build(List.of(svc), List.of(eps), NODE_A);

    assertThat(result.entries())
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.port().name().toString()).isEqualTo("shop/web:http");
              assertThat(entry.port().clusterIp()).isEqualTo("10.96.0.10");
              assertThat(entry.port().protocol()).isEqualTo(Protocol.TCP);
              assertThat(entry.endpoints())
                  .containsExactly(
                      new Endpoint(
                          "10.244.1.5",
                          8080,
                          true,
                          true,
                          false,
                          "node-a",
                          true,
                          java.util.Set.of("zone-a"),
                          null,
                          null),
                      new Endpoint(
                          "10.244.2.5",
                          8080,
                          false,
                          true,
                          true,
                          "node-b",
                          false,
                          null,
                          null,
                          null));
            });
  }

  @Test
  void unsetConditionsMeanReadyAndServingAsKubeProxyReadsThem() {
    var eps =
        slice("web-1", "web", "IPv4")
            .addToEndpoints(endpoint("10.244.1.5", "node-b").build())
            .build();

    var endpoint =
        ServiceCatalog.build(List.of(service("web").build()), List.of(eps), NODE_A)
            .entries()
            .get(0)
            .endpoints()
            .get(0);

    assertThat(endpoint.ready()).isTrue();
    assertThat(endpoint.serving()).isTrue();
    assertThat(endpoint.terminating()).isFalse();
  }

  @Test
  void eachFamilySeesOnlyItsOwnAddresses() {
    var v4 =
        slice("web-4", "web", "IPv4")
            .addToEndpoints(endpoint("10.244.1.5", "node-a").build())
            .build();
    var v6 =
        slice("web-6", "web", "IPv6").addToEndpoints(endpoint("fd00::5", "node-a").build()).build();

    var ipv6 =
        ServiceCatalog.build(
            List.of(service("web").build()),
            List.of(v4, v6),
            new ServiceCatalog.Options("node-a", IpFamily.IPV6, null, null));

    assertThat(ipv6.entries())
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.port().clusterIp()).isEqualTo("fd00:96::10");
              assertThat(entry.endpoints()).extracting(Endpoint::ip).containsExactly("fd00::5");
            });
  }

  @Test
  void skipsHeadlessExternalNameAndOtherProxiesServicesWithAReason() {
    var headless =
        service("headless")
            .editSpec()
            .withClusterIP("None")
            .withClusterIPs("None")
            .endSpec()
            .build();
    var external =
        service("external")
            .editSpec()
            .withType("ExternalName")
            .withExternalName("db.example.com")
            .endSpec()
            .build();
    var other =
        service("other")
            .editMetadata()
            .addToLabels(Labels.SERVICE_PROXY_NAME, "cilium")
            .endMetadata()
            .build();
    var ours =
        service("ours")
            .editMetadata()
            .addToLabels(Labels.SERVICE_PROXY_NAME, "proxima")
            .endMetadata()
            .build();

    var withoutName =
        ServiceCatalog.build(List.of(headless, external, other, ours), List.of(), NODE_A);
    var unlabelled = service("plain").build();
    var named =
        ServiceCatalog.build(
            List.of(other, ours, unlabelled),
            List.of(),
            new ServiceCatalog.Options("node-a", IpFamily.IPV4, "proxima", null));

    assertThat(withoutName.entries()).isEmpty();
    assertThat(withoutName.skipped())
        .hasSize(4)
        .anySatisfy(s -> assertThat(s).startsWith("shop/headless: headless"));
    assertThat(named.entries())
        .as("beside kube-proxy, only the Services labelled for Proxima")
        .extracting(e -> e.port().name().service().name())
        .containsExactly("ours");
    assertThat(named.skipped())
        .anySatisfy(s -> assertThat(s).startsWith("shop/plain: not labelled"));
  }

  @Test
  void badInputIsSkippedWithAWarningNamingTheField() {
    var svc =
        service("web")
            .editSpec()
            .addNewPort()
            .withName("big")
            .withPort(70000)
            .withProtocol("TCP")
            .endPort()
            .addNewPort()
            .withName("odd")
            .withPort(81)
            .withProtocol("QUIC")
            .endPort()
            .withExternalIPs("not-an-ip", "192.0.2.7")
            .withLoadBalancerSourceRanges("10.0.0.0/99")
            .endSpec()
            .build();
    var eps =
        slice("web-1", "web", "IPv4")
            .addToEndpoints(
                endpoint("10.244.1.999", "node-a").build(),
                endpoint("10.244.1.6", "node-a").build())
            .build();
    EndpointSlice unlabelled =
        slice("stray", "web", "IPv4")
            .editMetadata()
            .withLabels(null)
            .endMetadata()
            .addToEndpoints(endpoint("10.244.9.9", "node-a").build())
            .build();

    var result = ServiceCatalog.build(List.of(svc), List.of(eps, unlabelled), NODE_A);

    assertThat(result.entries())
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.port().externalIps()).containsExactly("192.0.2.7");
              assertThat(entry.port().loadBalancerSourceRanges()).isEmpty();
              assertThat(entry.endpoints()).extracting(Endpoint::ip).containsExactly("10.244.1.6");
            });
    assertThat(result.warnings())
        .anySatisfy(w -> assertThat(w).contains("spec.ports[1].port: 70000"))
        .anySatisfy(w -> assertThat(w).contains("spec.ports[2].protocol: \"QUIC\""))
        .anySatisfy(w -> assertThat(w).contains("\"not-an-ip\""))
        .anySatisfy(w -> assertThat(w).contains("\"10.0.0.0/99\""))
        .anySatisfy(w -> assertThat(w).contains("\"10.244.1.999\""));
  }

  @Test
  void aDuplicateAcrossSlicesCountsOnceAndTheNonTerminatingCopyWins() {
    var terminating =
        slice("a", "web", "IPv4")
            .addToEndpoints(
                endpoint("10.244.1.5", "node-a")
                    .withNewConditions()
                    .withReady(false)
                    .withTerminating(true)
                    .endConditions()
                    .build())
            .build();
    var fresh =
        slice("b", "web", "IPv4")
            .addToEndpoints(
                endpoint("10.244.1.5", "node-a")
                    .withNewConditions()
                    .withReady(true)
                    .endConditions()
                    .build())
            .build();

    var endpoints =
        ServiceCatalog.build(List.of(service("web").build()), List.of(terminating, fresh), NODE_A)
            .entries()
            .get(0)
            .endpoints();

    assertThat(endpoints).singleElement().satisfies(e -> assertThat(e.terminating()).isFalse());
  }

  @Test
  void onlyAServiceAnnotatedObserveLocalityTrueHasItsPortsCounted() {
    Service optedIn =
        service("counted")
            .editMetadata()
            .addToAnnotations(Annotations.OBSERVE_LOCALITY, "true")
            .endMetadata()
            .build();
    Service other =
        service("other")
            .editMetadata()
            .addToAnnotations(Annotations.OBSERVE_LOCALITY, "True")
            .endMetadata()
            .build();

    var entries = ServiceCatalog.build(List.of(optedIn, other), List.of(), NODE_A).entries();

    assertThat(entries)
        .extracting(e -> e.port().name().service().name(), e -> e.port().observeLocality())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("counted", true),
            org.assertj.core.groups.Tuple.tuple("other", false));
  }

  @Test
  void readsAffinityPoliciesLoadBalancerIpsAndNodePorts() {
    Service svc =
        service("lb")
            .editSpec()
            .withType("LoadBalancer")
            .editPort(0)
            .withNodePort(30080)
            .endPort()
            .withSessionAffinity("ClientIP")
            .withExternalTrafficPolicy("Local")
            .withInternalTrafficPolicy("Local")
            .withHealthCheckNodePort(32000)
            .withLoadBalancerSourceRanges("203.0.113.0/24", "2001:db8::/32")
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("192.0.2.10")
            .endIngress()
            .addNewIngress()
            .withIp("192.0.2.11")
            .withIpMode("Proxy")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();

    var port = ServiceCatalog.build(List.of(svc), List.of(), NODE_A).entries().get(0).port();

    assertThat(port.nodePort()).isEqualTo(30080);
    assertThat(port.stickyTimeout()).isEqualTo(Duration.ofSeconds(10800));
    assertThat(port.externalTrafficLocal()).isTrue();
    assertThat(port.internalTrafficLocal()).isTrue();
    assertThat(port.healthCheckNodePort()).isEqualTo(32000);
    assertThat(port.loadBalancerIps())
        .as("ipMode Proxy is not programmed")
        .containsExactly("192.0.2.10");
    assertThat(port.loadBalancerSourceRanges()).containsExactly("203.0.113.0/24");
    assertThat(port.externallyAccessible()).isTrue();
  }

  @Test
  void fqdnSlicesAreIgnored() {
    var fqdn =
        slice("web-names", "web", "FQDN")
            .addToEndpoints(endpoint("db.example.com", "node-a").build())
            .build();

    var result = ServiceCatalog.build(List.of(service("web").build()), List.of(fqdn), NODE_A);

    assertThat(result.entries())
        .singleElement()
        .satisfies(entry -> assertThat(entry.endpoints()).isEmpty());
    assertThat(result.warnings()).isEmpty();
  }

  @Test
  void sourceRangesOfOnlyTheOtherFamilyLeaveThisFamilysLoadBalancerIpsClosed() {
    var lb =
        service("lb")
            .editSpec()
            .withType("LoadBalancer")
            .withLoadBalancerSourceRanges("10.0.0.0/8")
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("2001:db8::7")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();

    var ipv6 =
        ServiceCatalog.build(
            List.of(lb),
            List.of(),
            new ServiceCatalog.Options("node-a", IpFamily.IPV6, null, null));
    var ipv4 = ServiceCatalog.build(List.of(lb), List.of(), NODE_A);

    var port = ipv6.entries().get(0).port();
    assertThat(port.loadBalancerIps()).containsExactly("2001:db8::7");
    assertThat(port.restrictSources()).isTrue();
    assertThat(port.loadBalancerSourceRanges()).isEmpty();
    assertThat(ipv6.warnings()).anySatisfy(w -> assertThat(w).contains("shop/lb", "fail closed"));
    assertThat(ipv4.entries().get(0).port().loadBalancerSourceRanges())
        .containsExactly("10.0.0.0/8");
  }

  @Test
  void anAffinityTimeoutIsCutToTheApiLimitAndAnUnsetOneTakesTheDefault() {
    var sticky =
        service("sticky")
            .editSpec()
            .withSessionAffinity("ClientIP")
            .withNewSessionAffinityConfig()
            .withNewClientIP()
            .withTimeoutSeconds(86401)
            .endClientIP()
            .endSessionAffinityConfig()
            .endSpec()
            .build();
    var defaulted =
        service("defaulted").editSpec().withSessionAffinity("ClientIP").endSpec().build();

    var result = ServiceCatalog.build(List.of(sticky, defaulted), List.of(), NODE_A);

    assertThat(result.entries())
        .extracting(entry -> entry.port().stickyTimeout())
        .containsExactly(Duration.ofSeconds(10800), Duration.ofSeconds(86400));
  }

  @Test
  void externalIpsAboveTheCapAreLeftOutWithAWarningNamingTheService() {
    var ips = new java.util.ArrayList<String>();
    for (int i = 0; i < ServiceCatalog.MAX_EXTERNAL_IPS + 5; i++) {
      ips.add("198.18." + i / 250 + "." + (i % 250 + 1));
    }
    var many = service("many").editSpec().withExternalIPs(ips).endSpec().build();

    var result = ServiceCatalog.build(List.of(many), List.of(), NODE_A);

    assertThat(result.entries().get(0).port().externalIps())
        .hasSize(ServiceCatalog.MAX_EXTERNAL_IPS)
        .startsWith("198.18.0.1")
        .doesNotContain(ips.get(ServiceCatalog.MAX_EXTERNAL_IPS));
    assertThat(result.warnings())
        .anySatisfy(w -> assertThat(w).contains("many", "spec.externalIPs", "cap of 1000"));
  }

  @Test
  void aServiceWhosePortsTimesAddressesPassTheCapKeepsItsFirstPortsWithAWarning() {
    var ips = new ArrayList<String>();
    for (int i = 0; i < ServiceCatalog.MAX_EXTERNAL_IPS; i++) {
      ips.add("198.18." + i / 250 + "." + (i % 250 + 1));
    }
    var ports = tcpPorts(200);
    var wide = service("wide").editSpec().withExternalIPs(ips).withPorts(ports).endSpec().build();

    var result = ServiceCatalog.build(List.of(wide), List.of(), NODE_A);

    // Each port writes its ClusterIP, its NodePort slot and the 1,000 externalIPs: 1,002 ways in.
    assertThat(result.entries()).hasSize(ServiceCatalog.MAX_WAYS_IN / 1002);
    assertThat(result.warnings())
        .anySatisfy(w -> assertThat(w).contains("wide", "spec.ports", "cap of 100000"));
  }

  @Test
  void aServiceWithAHundredPortsAndAThousandAddressesKeepsEveryPort() {
    var ips = new ArrayList<String>();
    for (int i = 0; i < 900; i++) {
      ips.add("198.18." + i / 250 + "." + (i % 250 + 1));
    }
    var ports = tcpPorts(100);
    var wide = service("wide").editSpec().withExternalIPs(ips).withPorts(ports).endSpec().build();

    var result = ServiceCatalog.build(List.of(wide), List.of(), NODE_A);

    assertThat(result.entries()).hasSize(100);
    assertThat(result.warnings()).noneSatisfy(w -> assertThat(w).contains("spec.ports"));
  }

  @Test
  void sourceRangesAboveTheCapAdmitOnlyTheFirstAndManyPortsWithThemKeepTheFirstPorts() {
    var ranges = new ArrayList<String>();
    for (int i = 0; i < 2 * ServiceCatalog.MAX_SOURCE_RANGES; i++) {
      ranges.add("10." + i / 256 + "." + i % 256 + ".0/24");
    }
    var ports = tcpPorts(10);
    var walled =
        service("walled")
            .editSpec()
            .withType("LoadBalancer")
            .withLoadBalancerSourceRanges(ranges)
            .withPorts(ports)
            .endSpec()
            .build();

    var result = ServiceCatalog.build(List.of(walled), List.of(), NODE_A);

    assertThat(result.entries())
        .hasSize(ServiceCatalog.MAX_FIREWALL_ELEMENTS / ServiceCatalog.MAX_SOURCE_RANGES)
        .allSatisfy(
            entry ->
                assertThat(entry.port().loadBalancerSourceRanges())
                    .hasSize(ServiceCatalog.MAX_SOURCE_RANGES)
                    .contains("10.0.0.0/24")
                    .doesNotContain("10.7.208.0/24"));
    assertThat(result.warnings())
        .anySatisfy(
            w -> assertThat(w).contains("walled", "loadBalancerSourceRanges", "cap of 1000"))
        .anySatisfy(w -> assertThat(w).contains("walled", "spec.ports", "cap of 4000"));
  }

  private static List<io.fabric8.kubernetes.api.model.ServicePort> tcpPorts(int count) {
    var ports = new ArrayList<io.fabric8.kubernetes.api.model.ServicePort>();
    for (int i = 0; i < count; i++) {
      ports.add(
          new io.fabric8.kubernetes.api.model.ServicePortBuilder()
              .withName("p" + i)
              .withProtocol("TCP")
              .withPort(1000 + i)
              .build());
    }
    return ports;
  }
}
