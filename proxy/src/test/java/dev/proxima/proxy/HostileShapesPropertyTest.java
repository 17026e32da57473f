package dev.proxima.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random valid Services and EndpointSlices, from fixed seeds, through planning and both renderers:
 * the rendered work must stay linear in the sizes a tenant chose. Work is counted in script lines
 * and characters (characters bound set elements and rule words too, as names are short here), never
 * in wall time.
 *
 * <p>The bound is {@code A * Σ_ports(addresses + endpoints + source ranges) + C * ports + empty},
 * where {@code empty} is the rendering of no Service (the fixed skeleton) and addresses are the
 * ClusterIP, externalIPs, load-balancer IPs and the NodePort. Why these constants: in iptables an
 * endpoint costs its chain's declaration, its masquerade mark, its DNAT and the jump to it (four
 * lines; a second jump when it is also in the Local list), an address a jump from the services
 * chain plus at most a firewall or external-chain rule, a source range one rule per port; nft
 * writes at most as many (one element or rule each, endpoints in at most two lists). So {@link
 * #PER_UNIT_LINES} is six (the seeds below reach about four and a half); a port's own chains, jumps
 * and affinity rules fit in {@link #PER_PORT_LINES}. Set and map elements may share a line, so the
 * characters are bounded too: a line here holds a few short generated names, addresses and a chain
 * hash, at most about 125 characters in these seeds, so {@link #CHARS_PER_LINE} per line of the
 * bound. Work that grows as addresses times endpoints (each endpoint list written once per address,
 * say) breaks the bound, as the second test shows.
 */
class HostileShapesPropertyTest {
  private static final int PER_UNIT_LINES = 6;
  private static final int PER_PORT_LINES = 40;
  private static final int CHARS_PER_LINE = 160;

  /** The API server's cap on endpoints per EndpointSlice. */
  private static final int MAX_ENDPOINTS_PER_SLICE = 1000;

  private static final long[] SEEDS = {
    1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946
  };

  static Stream<Arguments> seedsAndModes() {
    return Stream.of(ProxyMode.values())
        .flatMap(mode -> java.util.Arrays.stream(SEEDS).mapToObj(seed -> Arguments.of(seed, mode)));
  }

  @ParameterizedTest(name = "seed {0}, {1}")
  @MethodSource("seedsAndModes")
  void renderedWorkIsLinearInWhatTheTenantWrote(long seed, ProxyMode mode) {
    var cluster = Cluster.generate(new Random(seed), false);

    var work = Work.of(mode, cluster);

    assertThat(work.ports()).as("every generated port is planned").isEqualTo(cluster.ports);
    work.assertWithin(cluster, Work.of(mode, Cluster.EMPTY));
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(ProxyMode.class)
  void theBoundCatchesEndpointsWrittenOncePerAddress(ProxyMode mode) {
    // A stand-in for a quadratic regression: every slice holds its endpoints once per address of
    // its Service, while the bound is still taken from the shape the tenant meant.
    var failures = 0;
    for (var seed : java.util.Arrays.copyOf(SEEDS, 3)) {
      var cluster = Cluster.generate(new Random(seed), true);
      var work = Work.of(mode, cluster);
      var empty = Work.of(mode, Cluster.EMPTY);
      try {
        work.assertWithin(cluster, empty);
      } catch (AssertionError expected) {
        failures++;
      }
    }
    assertThat(failures).as("seeds whose quadratic work the bound catches").isPositive();
  }

  /** The rendered script of one mode, measured. */
  private record Work(ProxyMode mode, int ports, long lines, long chars) {
    static Work of(ProxyMode mode, Cluster cluster) {
      var plan =
          NodePlanner.plan(
              IpFamily.IPV4,
              "node-a",
              ClusterObjects.node("node-a", "zone-a"),
              null,
              cluster.services,
              cluster.slices,
              AddressPolicy.ofNode(ClusterObjects.node("node-a", "zone-a")),
              ZoneDemand.unknown());
      var settings = RuleSettings.defaults();
      String script;
      if (mode == ProxyMode.nftables) {
        script = NftPlanRenderer.render(plan, settings, List.of("192.0.2.10")).script();
      } else {
        script =
            IptablesRenderer.renderWithJumps(
                    settings.forFamily(plan.family(), List.of(), List.of()),
                    plan.ports().stream().map(NftPlanRenderer::rules).toList())
                .filterAndNat();
      }
      return new Work(mode, plan.ports().size(), script.lines().count(), script.length());
    }

    void assertWithin(Cluster cluster, Work empty) {
      System.out.printf(
          "DBG %s ports=%d units=%d lines=%d chars=%d emptyL=%d emptyC=%d perUnit=%.2f charsPerLine=%.1f%n",
          mode,
          cluster.ports,
          cluster.units,
          lines,
          chars,
          empty.lines,
          empty.chars,
          (lines - empty.lines) / (double) Math.max(1, cluster.units),
          (chars - empty.chars) / (double) Math.max(1, lines - empty.lines));
      long lineBound =
          PER_UNIT_LINES * cluster.units + PER_PORT_LINES * cluster.ports + empty.lines;
      assertThat(lines)
          .as("%s lines for %d ports and %d units", mode, cluster.ports, cluster.units)
          .isLessThanOrEqualTo(lineBound);
      assertThat(chars)
          .as("%s characters for %d ports and %d units", mode, cluster.ports, cluster.units)
          .isLessThanOrEqualTo(CHARS_PER_LINE * (lineBound - empty.lines) + empty.chars);
    }
  }

  /**
   * Generated Services and slices, with the sizes the bound is taken from: {@code units} is
   * Σ_ports(addresses + endpoints + source ranges) as the tenant wrote them.
   */
  private static final class Cluster {
    static final Cluster EMPTY = new Cluster();

    private static final String[] TYPES = {"ClusterIP", "NodePort", "LoadBalancer"};
    private static final String[] PROTOCOLS = {"TCP", "UDP", "SCTP"};
    private static final String[] DISTRIBUTIONS = {
      null, "PreferClose", "PreferSameZone", "PreferSameNode"
    };
    private static final String[] ZONES = {"zone-a", "zone-b", "zone-c"};
    private static final String[] NODES = {"node-a", "node-b", "node-c", "node-d"};

    final List<Service> services = new ArrayList<>();
    final List<EndpointSlice> slices = new ArrayList<>();
    int ports;
    long units;

    static Cluster generate(Random random, boolean quadratic) {
      var cluster = new Cluster();
      int serviceCount = 1 + random.nextInt(6);
      int nextNodePort = 30000;
      int nextAddress = 0;
      int nextEndpoint = 0;
      for (int s = 0; s < serviceCount; s++) {
        var type = TYPES[random.nextInt(TYPES.length)];
        boolean external = !"ClusterIP".equals(type);
        int portCount = 1 + random.nextInt(12);
        var externalIps = new ArrayList<String>();
        for (int i = random.nextInt(4) == 0 ? random.nextInt(40) : random.nextInt(3); i > 0; i--) {
          externalIps.add(address("198.18.", nextAddress++));
        }
        var ingressIps = new ArrayList<String>();
        var ranges = new ArrayList<String>();
        if ("LoadBalancer".equals(type)) {
          for (int i = random.nextInt(5); i > 0; i--) {
            ingressIps.add(address("203.0.", nextAddress++));
          }
          for (int i = random.nextInt(3) == 0 ? random.nextInt(60) : 0; i > 0; i--) {
            ranges.add(
                random.nextInt(256)
                    + "."
                    + random.nextInt(256)
                    + ".0.0/"
                    + (8 + random.nextInt(9)));
          }
        }
        var builder =
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("tenant-" + random.nextInt(3))
                .withName("svc-" + s)
                .withUid("uid-" + s)
                .endMetadata()
                .withNewSpec()
                .withType(type)
                .withClusterIP("10.96.0." + (s + 1))
                .withClusterIPs("10.96.0." + (s + 1))
                .withExternalIPs(externalIps)
                .withLoadBalancerSourceRanges(ranges)
                .withInternalTrafficPolicy(random.nextBoolean() ? "Cluster" : "Local")
                .withTrafficDistribution(DISTRIBUTIONS[random.nextInt(DISTRIBUTIONS.length)])
                .endSpec()
                .withNewStatus()
                .withNewLoadBalancer()
                .endLoadBalancer()
                .endStatus();
        if (external) {
          boolean local = random.nextBoolean();
          builder.editSpec().withExternalTrafficPolicy(local ? "Local" : "Cluster").endSpec();
          if (local && "LoadBalancer".equals(type)) {
            builder.editSpec().withHealthCheckNodePort(nextNodePort++).endSpec();
          }
        }
        if (random.nextBoolean()) {
          builder
              .editSpec()
              .withSessionAffinity("ClientIP")
              .withNewSessionAffinityConfig()
              .withNewClientIP()
              .withTimeoutSeconds(1 + random.nextInt(86400))
              .endClientIP()
              .endSessionAffinityConfig()
              .endSpec();
        }
        for (var ip : ingressIps) {
          builder
              .editStatus()
              .editLoadBalancer()
              .addNewIngress()
              .withIp(ip)
              .endIngress()
              .endLoadBalancer()
              .endStatus();
        }
        var service = builder.build();
        var slicePorts = new ArrayList<io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort>();
        for (int p = 0; p < portCount; p++) {
          var port = new io.fabric8.kubernetes.api.model.ServicePort();
          port.setName("p" + p);
          port.setPort(80 + p);
          port.setProtocol(PROTOCOLS[random.nextInt(PROTOCOLS.length)]);
          if (external) {
            port.setNodePort(nextNodePort++);
          }
          service.getSpec().getPorts().add(port);
          var slicePort = new io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort();
          slicePort.setName("p" + p);
          slicePort.setPort(8080 + p);
          slicePort.setProtocol(port.getProtocol());
          slicePorts.add(slicePort);
        }
        cluster.services.add(service);

        int addresses = 1 + externalIps.size() + ingressIps.size() + (external ? 1 : 0);
        int endpointCount =
            random.nextInt(5) == 0
                ? random.nextInt(2 * MAX_ENDPOINTS_PER_SLICE)
                : random.nextInt(40);
        var endpoints = new ArrayList<Endpoint>();
        int written = quadratic ? endpointCount * addresses : endpointCount;
        for (int e = 0; e < written; e++) {
          endpoints.add(endpoint(random, address("10.", 0x10000 + nextEndpoint++)));
        }
        for (int from = 0, n = 0; from < endpoints.size(); from += MAX_ENDPOINTS_PER_SLICE, n++) {
          var part =
              endpoints.subList(from, Math.min(endpoints.size(), from + MAX_ENDPOINTS_PER_SLICE));
          cluster.slices.add(
              new EndpointSliceBuilder()
                  .withNewMetadata()
                  .withNamespace(service.getMetadata().getNamespace())
                  .withName("svc-" + s + "-" + n)
                  .withLabels(Map.of(Labels.SERVICE_NAME, "svc-" + s))
                  .endMetadata()
                  .withAddressType("IPv4")
                  .withPorts(slicePorts)
                  .withEndpoints(new ArrayList<>(part))
                  .build());
        }
        cluster.ports += portCount;
        cluster.units += (long) portCount * (addresses + endpointCount + ranges.size());
      }
      return cluster;
    }

    private static Endpoint endpoint(Random random, String ip) {
      boolean terminating = random.nextInt(6) == 0;
      var builder =
          new EndpointBuilder()
              .withAddresses(ip)
              .withNodeName(NODES[random.nextInt(NODES.length)])
              .withZone(ZONES[random.nextInt(ZONES.length)])
              .withNewConditions()
              .withReady(!terminating && random.nextInt(8) != 0)
              .withServing(!terminating || random.nextBoolean())
              .withTerminating(terminating)
              .endConditions();
      if (random.nextBoolean()) {
        builder
            .withNewHints()
            .addNewForZone()
            .withName(ZONES[random.nextInt(ZONES.length)])
            .endForZone()
            .endHints();
      }
      return builder.build();
    }

    /** The {@code n}th address under a two-octet prefix, skipping the .0 and .255 ends. */
    private static String address(String prefix, int n) {
      int host = n % 254 + 1;
      int net = (n / 254) % 256;
      int top = n / (254 * 256);
      return "10.".equals(prefix)
          ? "10." + (244 + top) + "." + net + "." + host
          : prefix + net + "." + host;
    }
  }
}
