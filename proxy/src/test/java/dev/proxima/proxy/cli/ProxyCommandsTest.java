package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.testing.HostTools;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProxyCommandsTest {
  @TempDir Path directory;

  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var commandLine = ProxyMain.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    return new Run(commandLine.execute(args), out.toString(), err.toString());
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
    assertThat(dns.get("clusterEndpoints")).hasSize(1);
    assertThat(dns.get("clusterEndpoints").get(0).asText()).isEqualTo("10.244.1.10:53");
    assertThat(dns.get("localEndpoints").isNull())
        .as("a list the Service does not use is null")
        .isTrue();
    assertThat(dns.get("allReachableEndpoints")).hasSize(1);
    assertThat(dns.get("hasAnyEndpoints").asBoolean()).isTrue();
    assertThat(dns.get("topology").asText()).isEqualTo("PreferSameNode");
    assertThat(dns.get("reason").asText()).contains("node-a");
    var web = rows.get(1);
    assertThat(web.get("port").asText()).as("an unnamed port shows its number").isEqualTo("80");
    assertThat(web.get("hasAnyEndpoints").asBoolean()).isFalse();
    assertThat(web.get("clusterEndpoints")).isEmpty();
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
    var check = Nft.onThisHost().check(result.out());
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
  void anUnknownNodeIsNotedAndZoneHintsCannotMatch() throws Exception {
    var result = run("explain", "--state", state().toString(), "--node", "node-z", "-o", "json");

    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).contains("Node node-z is not in the state file");
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
    var check = Nft.onThisHost().check(result.out());
    assertThat(check.succeeded()).as(check.output()).isTrue();
  }
}
