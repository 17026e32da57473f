package dev.proxima.proxy.cli;

import static dev.proxima.proxy.testing.ApiObjects.serviceCidr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.testing.ExportedCluster;
import dev.proxima.testing.JarCommand;
import dev.proxima.testing.ReachableApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxy jar's offline commands as operators run them: the packaged jar as its own process. */
class ProxyCommandsIT {
  static final Path JAR = Path.of("target", "proxima-proxy.jar");

  @TempDir Path directory;

  record Run(int exitCode, String out, String err) {}

  Run run(String... args) {
    var result = new JarCommand(JAR, directory).run(args);
    return new Run(result.exitCode(), result.out(), result.err());
  }

  private Path state() throws Exception {
    var file = directory.resolve("state.yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Node
        metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-a}}
        status: {addresses: [{type: InternalIP, address: 192.168.0.11}]}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: dns, namespace: kube-system}
        spec:
          clusterIP: 10.96.0.10
          trafficDistribution: PreferSameNode
          ports: [{name: dns, port: 53, protocol: UDP}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          type: NodePort
          clusterIP: 10.96.0.20
          ports: [{port: 80, nodePort: 30080}]
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: dns-1, namespace: kube-system, labels: {kubernetes.io/service-name: dns}}
        addressType: IPv4
        ports: [{name: dns, port: 53, protocol: UDP}]
        endpoints:
        - addresses: [10.244.1.10]
          nodeName: node-a
          conditions: {ready: true}
          hints: {forZones: [{name: zone-a}], forNodes: [{name: node-a}]}
        - addresses: [10.244.2.10]
          nodeName: node-b
          conditions: {ready: true}
          hints: {forZones: [{name: zone-b}], forNodes: [{name: node-b}]}
        """);
    return file;
  }

  @Test
  void helpListsEverySubcommand() {
    var result = run("--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("run")
        .contains("explain")
        .contains("render")
        .contains("cleanup");
  }

  @Test
  void explainSaysWhichEndpointsThisNodeUsesAndWhyAsJson() throws Exception {
    var result = run("explain", "--state", state().toString(), "--node", "node-a", "-o", "json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    var rows = new ObjectMapper().readTree(result.out());
    assertThat(rows).hasSize(2);
    var dns = rows.get(0);
    assertThat(dns.get("service").asText()).isEqualTo("kube-system/dns");
    assertThat(dns.get("port").asText()).isEqualTo("dns");
    assertThat(dns.get("protocol").asText()).isEqualTo("UDP");
    assertThat(dns.get("clusterPolicyEndpoints")).hasSize(1);
    assertThat(dns.get("clusterPolicyEndpoints").get(0).asText()).isEqualTo("10.244.1.10:53");
    assertThat(dns.get("localPolicyEndpoints").isNull())
        .as("a list the Service does not use is null")
        .isTrue();
    assertThat(dns.get("allReachableEndpoints")).hasSize(1);
    assertThat(dns.get("hasAnyEndpoints").asBoolean()).isTrue();
    assertThat(dns.get("topology").asText()).isEqualTo("PreferSameNode");
    assertThat(dns.get("reason").asText()).contains("node-a");
    var web = rows.get(1);
    assertThat(web.get("port").asText()).as("an unnamed port shows its number").isEqualTo("80");
    assertThat(web.get("hasAnyEndpoints").asBoolean()).isFalse();
    assertThat(web.get("clusterPolicyEndpoints")).isEmpty();
  }

  @Test
  void explainWarnsWhenTheStateHasServicesButNoEndpointSlices() throws Exception {
    var file = directory.resolve("no-slices.yaml");
    var full = Files.readString(state());
    Files.writeString(file, full.substring(0, full.indexOf("---\napiVersion: discovery.k8s.io")));

    var result = run("explain", "--state", file.toString(), "--node", "node-a");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err())
        .contains(
            "warning: the state file "
                + file
                + " has 2 Services but no EndpointSlices, so every Service shows no endpoints:"
                + " export them too");
  }

  @Test
  void explainReadsTheStateFromStandardInputWithADash() throws Exception {
    var result =
        new JarCommand(JAR, directory)
            .runWithInput(state(), "explain", "--state", "-", "--node", "node-a");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).contains("kube-system/dns port dns/UDP");
  }

  @Test
  void explainAsTextNamesTheNodeAndZone() throws Exception {
    var result = run("explain", "--state", state().toString(), "--node", "node-a");

    assertThat(result.out())
        .startsWith("Node node-a (zone zone-a), IPv4: 2 service ports")
        .contains("why:");
  }

  @Test
  void renderPrintsAScriptNftAccepts() throws Exception {
    var result =
        run(
            "render",
            "--state",
            state().toString(),
            "--node",
            "node-a",
            "--cluster-cidr",
            "10.244.0.0/16",
            "--nodeport-addresses",
            "192.168.0.0/24");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .startsWith("add table ip proxima")
        .contains("10.96.0.10 . udp . 53 . 0 : 10.244.1.10 . 53")
        .contains("192.168.0.11")
        .contains("tcp . 30080")
        .doesNotContain("10.244.2.10 . 53");
    assumeTrue(
        dev.proxima.proxy.kernel.NftAvailability.canCheck(),
        dev.proxima.proxy.kernel.NftAvailability.reason());
    var check = Nft.onThisHost().check(FakeNft.script(result.out()));
    assertThat(check.succeeded()).as(check.output()).isTrue();
  }

  @Test
  void renderInIptablesModePrintsTheRestoreInputOfOneFamilyWithTheJumpsThatLoadsAsIs()
      throws Exception {
    var result =
        run(
            "render",
            "--state",
            state().toString(),
            "--node",
            "node-a",
            "--mode",
            "iptables",
            "--cluster-cidr",
            "10.244.0.0/16");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .startsWith("*mangle\n:PROXIMA-PROXY-CANARY - [0:0]\n")
        .contains("*filter\n", "*nat\n", "-j DNAT --to-destination 10.244.1.10:53")
        .contains(
            "-I PREROUTING -m comment --comment \"proxima service portals\" -j PROXIMA-SERVICES")
        .contains("--dport 30080")
        .doesNotContain("10.244.2.10:53", "add table");
    assertThat(
            run(
                    "render",
                    "--state",
                    state().toString(),
                    "--node",
                    "node-a",
                    "--mode",
                    "iptables",
                    "--family",
                    "ipv6")
                .out())
        .as("the state has no IPv6 Services")
        .doesNotContain("10.244.1.10");

    assumeTrue(
        HostTools.uid() == 0 && HostTools.onPath("iptables-restore").isPresent(),
        "needs root and iptables");
    String namespace = "proxima-render-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    HostTools.run(directory, "ip", "netns", "add", namespace).assertSucceeded();
    try {
      HostTools.inNamespace(
              directory,
              namespace,
              result.out(),
              List.of("iptables-restore", "--noflush", "-w", "5"))
          .assertSucceeded();
      assertThat(
              HostTools.inNamespace(
                      directory, namespace, null, List.of("iptables-save", "-t", "nat"))
                  .assertSucceeded()
                  .stdout())
          .contains(
              "-A PREROUTING -m comment --comment \"proxima service portals\" -j PROXIMA-SERVICES");
    } finally {
      HostTools.run(directory, "ip", "netns", "del", namespace);
    }
  }

  @Test
  void anInvalidClusterCidrIsAClearErrorWithExitCodeTwo() throws Exception {
    var result =
        run(
            "render",
            "--state",
            state().toString(),
            "--node",
            "node-a",
            "--cluster-cidr",
            "10.244.0.0/99");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--cluster-cidr: \"10.244.0.0/99\" is not a CIDR");
  }

  @Test
  void aMalformedStateFileIsAClearErrorWithExitCodeTwo() throws Exception {
    var file = directory.resolve("bad.yaml");
    Files.writeString(file, "kind: Service\nmetadata: {name: x, namespace: y}\nspec: {ports: 7}\n");

    var result = run("explain", "--state", file.toString(), "--node", "node-a");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("document 1")
        .contains("Service y/x")
        .contains("field spec.ports");
  }

  @Test
  void anUnknownNodeExitsWithTwoNamingTheKnownNodes() throws Exception {
    for (var command : List.of("explain", "render")) {
      var result = run(command, "--state", state().toString(), "--node", "node-z");

      assertThat(result.exitCode()).isEqualTo(2);
      assertThat(result.err())
          .isEqualTo(
              "error: node node-z is not in the state file " + state() + "; its nodes: node-a\n");
      assertThat(result.out()).isEmpty();
    }
  }

  @Test
  void aNodeWithoutAZoneLabelCannotUseZoneHintsAndExplainSaysSo() throws Exception {
    var file = directory.resolve("nozone.yaml");
    Files.writeString(
        file,
        Files.readString(state())
            .replace("labels: {topology.kubernetes.io/zone: zone-a}", "labels: {}"));

    var result = run("explain", "--state", file.toString(), "--node", "node-a", "-o", "json");

    var dns = new ObjectMapper().readTree(result.out()).get(0);
    assertThat(dns.get("topology").asText())
        .as("node hints still work")
        .isEqualTo("PreferSameNode");
    assertThat(run("explain", "--state", file.toString(), "--node", "node-a").out())
        .contains("zone <none>");
  }

  @Test
  void aServiceWithHundredsOfPortsRendersWithoutExtraChains() throws Exception {
    var ports = new StringBuilder();
    for (int port = 1000; port < 1300; port++) {
      ports.append("    - {name: p").append(port).append(", port: ").append(port).append("}\n");
    }
    var file = directory.resolve("ports.yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Node
        metadata: {name: node-a}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: wide, namespace: shop}
        spec:
          clusterIP: 10.96.0.99
          ports:
        %s"""
            .formatted(ports));

    var result = run("render", "--state", file.toString(), "--node", "node-a");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .contains("10.96.0.99 . tcp . 1299")
        .contains("10.96.0.99 . tcp . 1000");
    assertThat(result.out().lines().filter(line -> line.startsWith("add chain")).count())
        .isLessThan(30);
    assumeTrue(
        dev.proxima.proxy.kernel.NftAvailability.canCheck(),
        dev.proxima.proxy.kernel.NftAvailability.reason());
    var check = Nft.onThisHost().check(FakeNft.script(result.out()));
    assertThat(check.succeeded()).as(check.output()).isTrue();
  }

  @Test
  void explainsAndRendersTenThousandServicesOfTenEndpointsExportedAsOneYamlList() throws Exception {
    var file = directory.resolve("big.yaml");
    ExportedCluster.write(file, 10_000, 10, 100, ExportedCluster.Format.YAML);
    var node = ExportedCluster.nodeName(7);
    var jar = new JarCommand(JAR, directory);

    var explain = jar.run("explain", "--state", file.toString(), "--node", node, "-o", "json");
    var render =
        jar.run(
            "render", "--state", file.toString(), "--node", node, "--cluster-cidr", "10.128.0.0/9");

    assertThat(explain.exitCode()).as(explain.toString()).isZero();
    assertThat(render.exitCode()).as(render.toString()).isZero();
    System.out.printf(
        "10,000 x 10 (%d MB of YAML): explain %d ms, render %d ms (%d MB of nft script)%n",
        Files.size(file) >> 20,
        explain.took().toMillis(),
        render.took().toMillis(),
        Files.size(render.outFile()) >> 20);
    var rows = new ObjectMapper().readTree(explain.outFile().toFile());
    assertThat(rows).hasSize(10_000);
    assertThat(rows.get(0).get("service").asText()).isEqualTo("ns-00/svc-00000");
    try (var lines = Files.lines(render.outFile())) {
      assertThat(lines.filter(line -> line.contains(ExportedCluster.clusterIp(9_999))).count())
          .as("the last Service is programmed")
          .isPositive();
    }
  }

  @Test
  void explainsTheSameClusterExportedAsJson() throws Exception {
    var file = directory.resolve("big.json");
    ExportedCluster.write(file, 2_000, 10, 30, ExportedCluster.Format.JSON);

    var result =
        run(
            "explain",
            "--state",
            file.toString(),
            "--node",
            ExportedCluster.nodeName(1),
            "-o",
            "json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(new ObjectMapper().readTree(result.out())).hasSize(2_000);
  }

  @Test
  void explainReadsALiveClusterThroughAKubeconfig() throws Exception {
    try (var api = new ReachableApiServer()) {
      var state = dev.proxima.model.state.StateFile.load(state());
      state.nodes().forEach(node -> api.client().resource(node).create());
      state.services().forEach(service -> api.client().resource(service).create());
      state.endpointSlices().forEach(slice -> api.client().resource(slice).create());
      var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), api.url());

      var result =
          run("explain", "--kubeconfig", kubeconfig.toString(), "--node", "node-a", "-o", "json");
      var typo = run("explain", "--kubeconfig", kubeconfig.toString(), "--node", "node-x");

      assertThat(result.exitCode()).as(result.err()).isZero();
      var dns = new ObjectMapper().readTree(result.out()).get(0);
      assertThat(dns.get("clusterPolicyEndpoints").get(0).asText()).isEqualTo("10.244.1.10:53");
      assertThat(typo.exitCode()).isEqualTo(2);
      assertThat(typo.err())
          .isEqualTo(
              "error: node node-x is not in the cluster of kubeconfig "
                  + kubeconfig
                  + "; its nodes: node-a\n");
    }
  }

  @Test
  void renderThroughAKubeconfigDropsTrafficToTheClustersUnallocatedServiceAddresses()
      throws Exception {
    try (var api = new ReachableApiServer()) {
      var state = dev.proxima.model.state.StateFile.load(state());
      state.nodes().forEach(node -> api.client().resource(node).create());
      state.services().forEach(service -> api.client().resource(service).create());
      state.endpointSlices().forEach(slice -> api.client().resource(slice).create());
      api.client().resource(serviceCidr("10.96.0.0/16")).create();
      var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), api.url());

      var result = run("render", "--kubeconfig", kubeconfig.toString(), "--node", "node-a");

      assertThat(result.exitCode()).as(result.err()).isZero();
      assertThat(result.out())
          .contains("add element ip proxima service-cidrs {\n\t10.96.0.0/16\n}");
    }
  }

  @Test
  void aBrokenKubeconfigForExplainIsOneLineAndExitCodeTwo() throws Exception {
    var garbage = Files.writeString(directory.resolve("garbage"), "clusters: [\n");

    var result = run("explain", "--kubeconfig", garbage.toString(), "--node", "node-a");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: kubeconfig " + garbage + " is not valid: at line 2, column 1: ")
        .hasLineCount(1);
  }
}
