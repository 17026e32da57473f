package dev.proxima.proxy.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.dataplane.DataPlane;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.kernel.Iptables;
import dev.proxima.proxy.kernel.IptablesBackend;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.selection.EndpointSelector;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import dev.proxima.proxy.testing.ServicePortFixtures;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real packets through rendered rules, one suite for both modes: a node namespace with two pod
 * namespaces on routed veth pairs, TCP servers in the pods answering with their name, clients
 * connecting from the node or from a pod. Every test runs once with the nftables ruleset and once
 * with the iptables one, loaded with the real tools.
 */
@RootTier
class DataPlaneTrafficTest {
  private static final String SERVER =
      """
      import java.net.*;
      public class Server {
        public static void main(String[] a) throws Exception {
          try (var s = new ServerSocket(Integer.parseInt(a[0]))) {
            while (true) {
              try (var c = s.accept()) {
                c.getOutputStream().write((a[1] + "\\n").getBytes());
              }
            }
          }
        }
      }
      """;

  @TempDir Path directory;
  private final String suffix = UUID.randomUUID().toString().substring(0, 6);
  private final String node = "pxn-" + suffix;
  private final List<String> namespaces = new ArrayList<>();
  private final List<Process> servers = new ArrayList<>();

  private ProxyMode mode;

  private void requireRootAndTools(ProxyMode mode) {
    this.mode = mode;
    assumeTrue(HostTools.onPath("ip").isPresent(), "needs ip (apt-get install iproute2)");
    assumeTrue(
        mode == ProxyMode.nftables
            ? HostTools.onPath("nft").isPresent()
            : HostTools.onPath("iptables-restore").isPresent(),
        "needs nft and iptables (apt-get install nftables iptables)");
  }

  @AfterEach
  void tearDown() throws Exception {
    servers.forEach(Process::destroyForcibly);
    for (var server : servers) {
      server.waitFor(5, TimeUnit.SECONDS);
    }
    for (var namespace : namespaces) {
      run("ip", "netns", "del", namespace);
    }
  }

  private String run(String... command) throws IOException, InterruptedException {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("timed out: " + String.join(" ", command));
    }
    return output;
  }

  private void must(String... command) throws Exception {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0)
        .as("%s: %s", String.join(" ", command), output)
        .isTrue();
  }

  /** A node namespace and one pod namespace per address, each pod on a routed veth pair. */
  private void buildNode(List<String> podIps) throws Exception {
    must("ip", "netns", "add", node);
    namespaces.add(node);
    must("ip", "netns", "exec", node, "ip", "link", "set", "lo", "up");
    must("ip", "netns", "exec", node, "sysctl", "-qw", "net.ipv4.ip_forward=1");

    var server = directory.resolve("Server.java");
    Files.writeString(server, SERVER);
    for (int i = 0; i < podIps.size(); i++) {
      var pod = "pxp" + i + "-" + suffix;
      var ip = podIps.get(i);
      var hostSide = "vh" + i + suffix;
      must("ip", "netns", "add", pod);
      namespaces.add(pod);
      must(
          "ip", "link", "add", hostSide, "netns", node, "type", "veth", "peer", "name", "eth0",
          "netns", pod);
      must("ip", "netns", "exec", node, "ip", "addr", "add", "169.254.1.1/32", "dev", hostSide);
      must("ip", "netns", "exec", node, "ip", "link", "set", hostSide, "up");
      must("ip", "netns", "exec", node, "ip", "route", "add", ip + "/32", "dev", hostSide);
      must("ip", "netns", "exec", pod, "ip", "link", "set", "lo", "up");
      must("ip", "netns", "exec", pod, "ip", "addr", "add", ip + "/32", "dev", "eth0");
      must("ip", "netns", "exec", pod, "ip", "link", "set", "eth0", "up");
      must("ip", "netns", "exec", pod, "ip", "route", "add", "169.254.1.1", "dev", "eth0");
      must(
          "ip",
          "netns",
          "exec",
          pod,
          "ip",
          "route",
          "add",
          "default",
          "via",
          "169.254.1.1",
          "dev",
          "eth0");
      var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      servers.add(
          new ProcessBuilder("ip", "netns", "exec", pod, java, server.toString(), "8080", "pod" + i)
              .redirectErrorStream(true)
              .redirectOutput(directory.resolve("server" + i + ".log").toFile())
              .start());
    }
    // Local traffic is routed before the output hook DNATs it, so Service IPs need some route.
    must("ip", "netns", "exec", node, "ip", "route", "add", "default", "dev", "vh0" + suffix);
  }

  /** Connects {@code times} times from the node namespace and returns who answered, counted. */
  private Map<String, Long> connect(String ip, int port, int times) throws Exception {
    return connectFrom(node, ip, port, times, 30);
  }

  /**
   * Connects from a namespace; a connection that gets no answer within the time limit ends the
   * loop, so a blackholed Service yields an empty map.
   */
  private Map<String, Long> connectFrom(
      String namespace, String ip, int port, int times, int seconds) throws Exception {
    var script =
        "for i in $(seq "
            + times
            + "); do if exec 3<>/dev/tcp/"
            + ip
            + "/"
            + port
            + "; then head -n1 <&3; exec 3<&-; else echo REFUSED; fi; done";
    var output =
        run(
            "ip",
            "netns",
            "exec",
            namespace,
            "timeout",
            String.valueOf(seconds),
            "bash",
            "-c",
            script);
    return output
        .lines()
        .map(line -> line.contains("refused") ? "REFUSED" : line.trim())
        .filter(l -> !l.isEmpty())
        .collect(Collectors.groupingBy(l -> l, Collectors.counting()));
  }

  private void awaitServers(List<String> ips) {
    // The JVM in each pod namespace needs a moment to open its socket.
    for (var ip : ips) {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  run(
                          "ip",
                          "netns",
                          "exec",
                          node,
                          "timeout",
                          "1",
                          "bash",
                          "-c",
                          "exec 3<>/dev/tcp/" + ip + "/8080 && head -n1 <&3")
                      .startsWith("pod"));
    }
  }

  private static Endpoint endpointAt(String ip, Locality locality) {
    return new Endpoint(ip, 8080, true, true, false, "other", false, null, null, locality);
  }

  private static Endpoint endpoint(String ip, String zone) {
    return new Endpoint(
        ip,
        8080,
        true,
        true,
        false,
        "other",
        false,
        zone == null ? null : Set.of(zone),
        null,
        null);
  }

  private static ServicePort clusterIp(String name, String ip) {
    return ServicePortFixtures.service("shop/" + name, ip, 80).portName("http").build();
  }

  /** Loads the mode's complete ruleset into the node namespace with the mode's own tool. */
  private void load(List<ServicePortRules> rules) throws Exception {
    var cidrs = List.of("10.250.0.0/16");
    if (mode == ProxyMode.nftables) {
      var script = directory.resolve("rules.nft");
      Files.writeString(
          script, new RulesetAssembler(FamilySettings.of(IpFamily.IPV4, cidrs)).replaceAll(rules));
      must("ip", "netns", "exec", node, "nft", "-f", script.toString());
    } else {
      var buffer = directory.resolve("rules.iptables");
      Files.writeString(
          buffer,
          IptablesRenderer.renderWithJumps(FamilySettings.of(IpFamily.IPV4, cidrs), rules)
              .filterAndNat());
      must("bash", "-c", "ip netns exec " + node + " iptables-restore --noflush -w 5 < " + buffer);
    }
  }

  private static ServicePortRules rules(
      ServicePort port, List<Endpoint> endpoints, String nodeZone) {
    var selection = EndpointSelector.select(endpoints, port, "node-x", nodeZone);
    return new ServicePortRules(
        port,
        selection.clusterEndpoints(),
        selection.localEndpoints(),
        selection.hasAnyEndpoints());
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void spreadsConnectionsOverEveryEndpointFollowsZoneHintsAndRejectsWithoutEndpoints(ProxyMode mode)
      throws Exception {
    requireRootAndTools(mode);
    var pods = List.of("10.250.1.2", "10.250.2.2");
    buildNode(pods);
    awaitServers(pods);
    var everywhere = clusterIp("web", "10.96.0.10");
    var zonal = clusterIp("zonal", "10.96.0.11");
    var empty = clusterIp("empty", "10.96.0.12");
    load(
        List.of(
            rules(
                everywhere,
                List.of(endpoint("10.250.1.2", null), endpoint("10.250.2.2", null)),
                "zone-a"),
            rules(
                zonal,
                List.of(endpoint("10.250.1.2", "zone-a"), endpoint("10.250.2.2", "zone-b")),
                "zone-a"),
            rules(empty, List.of(), "zone-a")));

    var spread = connect("10.96.0.10", 80, 40);
    var sameZone = connect("10.96.0.11", 80, 20);
    var noEndpoints = connect("10.96.0.12", 80, 3);

    assertThat(spread).as("both pods answer").containsOnlyKeys("pod0", "pod1");
    assertThat(spread.get("pod0")).as("even split within bounds: %s", spread).isBetween(8L, 32L);
    assertThat(sameZone)
        .as("only the zone-a pod")
        .containsOnlyKeys("pod0")
        .containsEntry("pod0", 20L);
    assertThat(noEndpoints)
        .as("rejected at once, not left to time out")
        .containsOnlyKeys("REFUSED");
    if (mode == ProxyMode.nftables) {
      // As upstream's nftables mode; iptables mode (like kube-proxy's) leaves such packets alone.
      var wrongPort = connect("10.96.0.10", 81, 3);
      assertThat(wrongPort)
          .as("a port the Service does not have is rejected")
          .containsOnlyKeys("REFUSED");
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void sessionAffinityKeepsAClientOnOneEndpointAndLocalPolicyWithoutLocalEndpointsDrops(
      ProxyMode mode) throws Exception {
    requireRootAndTools(mode);
    var sticky = nodeWithStickyService(Duration.ofSeconds(60));
    var both = List.of(endpoint("10.250.1.2", null), endpoint("10.250.2.2", null));
    var internalLocal =
        ServicePortFixtures.service("shop/local", "10.96.0.21", 80)
            .portName("http")
            .internalLocal()
            .rules(both, List.of(), true);
    load(List.of(sticky, internalLocal));

    var affinity = connect("10.96.0.20", 80, 20);
    var dropped = connectFrom(node, "10.96.0.21", 80, 1, 2);

    assertThat(affinity).as("one endpoint for all: %s", affinity).hasSize(1).containsValue(20L);
    assertThat(dropped).as("dropped: no answer and no reject").isEmpty();
  }

  /**
   * A node with two pods, and shop/sticky (10.96.0.20:80, both pods) remembering clients for {@code
   * timeout}.
   */
  private ServicePortRules nodeWithStickyService(Duration timeout) throws Exception {
    var pods = List.of("10.250.1.2", "10.250.2.2");
    buildNode(pods);
    awaitServers(pods);
    return ServicePortFixtures.service("shop/sticky", "10.96.0.20", 80)
        .portName("http")
        .sticky(timeout)
        .rules(List.of(endpoint("10.250.1.2", null), endpoint("10.250.2.2", null)), null, true);
  }

  /**
   * The live proxy's data plane, as {@code run} builds it, loading into the node namespace: its
   * full syncs are what happen at start, after a failed sync and hourly.
   */
  private DataPlane dataPlane() {
    var settings = new RuleSettings(List.of("10.250.0.0/16"), false, 14, List.of());
    var metrics = new ProxyMetrics(new PrometheusRegistry(), mode);
    var prefix = List.of("ip", "netns", "exec", node);
    if (mode == ProxyMode.nftables) {
      var nft = new ArrayList<>(prefix);
      nft.add("nft");
      return new NftDataPlane(
          IpFamily.IPV4,
          settings,
          new Nft(nft, Duration.ofSeconds(60)),
          metrics,
          Clock.systemUTC());
    }
    return new IptablesDataPlane(
        IpFamily.IPV4, settings, new Iptables(prefix, IpFamily.IPV4, IptablesBackend.NFT), metrics);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void sessionAffinityHoldsAcrossFullSyncsAndProxyRestarts(ProxyMode mode) throws Exception {
    requireRootAndTools(mode);
    var sticky = nodeWithStickyService(Duration.ofSeconds(600));
    var plane = dataPlane();
    assertThat(plane.replaceAll(List.of(sticky), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    var first = connect("10.96.0.20", 80, 3);
    assertThat(first).as("one endpoint for all: %s", first).hasSize(1);
    var chosen = first.keySet().iterator().next();

    // Each round is a full sync: by the same data plane (hourly, after a failure) or by a new one
    // (a restarted proxy), the second with a Service whose endpoint count is new to the table.
    // Without memory a client picks again, so six rounds would all agree by chance once in 64.
    var plain =
        ServicePortFixtures.service("shop/plain", "10.96.0.21", 80)
            .portName("http")
            .rules(List.of(endpoint("10.250.1.2", null)), null, true);
    for (int round = 0; round < 6; round++) {
      if (round % 2 == 1) {
        plane = dataPlane();
      }
      var ports = round == 1 ? List.of(sticky, plain) : List.of(sticky);
      // Every full sync, by this data plane or a new one (a restarted proxy), builds the table
      // beside the one in use and switches to it: connections and affinity survive it.
      assertThat(plane.replaceAll(ports, List.of()).status())
          .as("full sync %d", round)
          .isIn(DataPlane.Status.LOADED, DataPlane.Status.UNCHANGED);
      var after = connect("10.96.0.20", 80, 2);
      assertThat(after)
          .as("after full sync %d the client still reaches %s", round, chosen)
          .containsOnlyKeys(chosen);
    }
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theKernelCountsEachNewConnectionByTheLocalityOfItsEndpoint(ProxyMode mode) throws Exception {
    requireRootAndTools(mode);
    var pods = List.of("10.250.1.2", "10.250.2.2");
    buildNode(pods);
    awaitServers(pods);
    // shop/near opts in to per-Service counting; shop/far does not.
    var onNode =
        ServicePortFixtures.service("shop/near", "10.96.0.30", 80)
            .portName("http")
            .observeLocality()
            .rules(List.of(endpointAt("10.250.1.2", Locality.NODE)), null, true);
    var otherZone =
        ServicePortFixtures.service("shop/far", "10.96.0.31", 80)
            .portName("http")
            .rules(List.of(endpointAt("10.250.2.2", Locality.OTHER_ZONE)), null, true);
    var empty =
        ServicePortFixtures.service("shop/empty", "10.96.0.32", 80)
            .portName("http")
            .rules(List.of(), null, false);
    var plane = dataPlane();
    assertThat(plane.replaceAll(List.of(onNode, otherZone, empty), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    var before = plane.connectionCounts().orElseThrow();

    assertThat(connect("10.96.0.30", 80, 5)).containsEntry("pod0", 5L);
    assertThat(connect("10.96.0.31", 80, 3)).containsEntry("pod1", 3L);
    assertThat(connect("10.96.0.32", 80, 2)).containsOnlyKeys("REFUSED");
    // A connection to a pod without a Service is no Service connection: not counted.
    assertThat(connect("10.250.1.2", 8080, 4)).containsEntry("pod0", 4L);
    var after = plane.connectionCounts().orElseThrow();

    assertThat(after.byLocality().get(Locality.NODE) - before.byLocality().get(Locality.NODE))
        .isEqualTo(5);
    assertThat(
            after.byLocality().get(Locality.OTHER_ZONE)
                - before.byLocality().get(Locality.OTHER_ZONE))
        .isEqualTo(3);
    assertThat(after.byLocality().get(Locality.ZONE)).isZero();
    assertThat(after.byLocality().get(Locality.UNKNOWN)).isZero();
    // A refused connection never enters the conntrack table, so each SYN of it counts: a host
    // socket's first SYN is refused while connect() holds the socket, which makes the refusal
    // soft, and the kernel sends a second SYN a second later, which ends it. Two each.
    assertThat(after.withoutEndpoints() - before.withoutEndpoints()).isEqualTo(4);
    // Per Service port: shop/near's own counters saw its 5 connections, all on the node.
    var near = onNode.port().name();
    assertThat(after.servicePorts().asMap()).containsOnlyKeys(near);
    assertThat(
            after.servicePorts().asMap().get(near).get(Locality.NODE)
                - before.servicePorts().asMap().get(near).get(Locality.NODE))
        .isEqualTo(5);
    assertThat(after.servicePorts().asMap().get(near).get(Locality.OTHER_ZONE)).isZero();

    // The counts survive a partial sync that rewrites an endpoint's rules (the far endpoint is
    // now in this node's zone) and moves the counted port to another endpoint, and a full sync by
    // a restarted proxy; the kernel keeps counting. (The move is nftables mode's case: its
    // per-Service counts are keyed by Service address and endpoint port, which it leaves alone.)
    var nowInZone =
        ServicePortFixtures.service("shop/far", "10.96.0.31", 80)
            .portName("http")
            .rules(List.of(endpointAt("10.250.2.2", Locality.ZONE)), null, true);
    var nearMoved =
        mode == ProxyMode.iptables
            ? onNode
            : ServicePortFixtures.service("shop/near", "10.96.0.30", 80)
                .portName("http")
                .observeLocality()
                .rules(List.of(endpointAt("10.250.2.2", Locality.ZONE)), null, true);
    assertThat(
            plane
                .update(
                    Map.of(nowInZone.port().name(), nowInZone, nearMoved.port().name(), nearMoved))
                .status())
        .isEqualTo(DataPlane.Status.LOADED);
    assertThat(plane.connectionCounts()).as("a partial sync resets nothing").contains(after);
    var restarted = dataPlane();
    assertThat(restarted.replaceAll(List.of(nearMoved, nowInZone, empty), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    assertThat(restarted.connectionCounts()).as("nothing lost, nothing reset").contains(after);

    assertThat(connect("10.96.0.31", 80, 2)).containsEntry("pod1", 2L);
    var later = restarted.connectionCounts().orElseThrow();
    assertThat(later.byLocality().get(Locality.ZONE)).isEqualTo(2);
    assertThat(later.byLocality().get(Locality.OTHER_ZONE))
        .isEqualTo(after.byLocality().get(Locality.OTHER_ZONE));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aPodReachesItselfThroughItsOwnServiceHairpin(ProxyMode mode) throws Exception {
    requireRootAndTools(mode);
    var pods = List.of("10.250.1.2", "10.250.2.2");
    buildNode(pods);
    awaitServers(pods);
    load(
        List.of(
            ServicePortFixtures.service("shop/self", "10.96.0.30", 80)
                .portName("http")
                .cluster(
                    new Endpoint(
                        "10.250.1.2",
                        8080,
                        true,
                        true,
                        false,
                        "node-x",
                        true,
                        Set.of(),
                        Set.of(),
                        null))));

    var answers = connectFrom("pxp0-" + suffix, "10.96.0.30", 80, 5, 30);

    assertThat(answers)
        .as("pod0 through its own ClusterIP")
        .containsOnlyKeys("pod0")
        .containsEntry("pod0", 5L);
  }
}
