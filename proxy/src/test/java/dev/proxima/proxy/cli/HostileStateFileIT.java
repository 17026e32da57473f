package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.testing.JarCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * State files with the null fields a hostile or careless writer leaves: the offline commands skip
 * what they cannot use, name the field, and render the rest; they never die with a
 * NullPointerException. The packaged jar as its own process.
 */
class HostileStateFileIT {
  private static final String NODE =
      """
      apiVersion: v1
      kind: Node
      metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-a}}
      ---
      """;

  @TempDir Path directory;

  private JarCommand.Result run(String... args) {
    return new JarCommand(ProxyCommandsIT.JAR, directory).run(args);
  }

  private Path state() throws Exception {
    var file = directory.resolve("state.yaml");
    Files.writeString(
        file,
        NODE
            + """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          clusterIP: 10.96.0.20
          externalIPs: [null, 192.0.2.20]
          loadBalancerSourceRanges: [null]
          ports: [{}, null, {name: http, port: 80}]
        status: {loadBalancer: {ingress: [null, {}]}}
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: web-1, namespace: shop, labels: {kubernetes.io/service-name: web}}
        addressType: IPv4
        ports: [null, {name: http, port: 8080}]
        endpoints:
        - null
        - addresses: [null]
        - addresses: [10.244.1.5]
          conditions: {}
          hints: {forZones: [{}, null], forNodes: [{}]}
        """);
    return file;
  }

  @ParameterizedTest
  @ValueSource(strings = {"nftables", "iptables"})
  void renderSkipsNullFieldsNamesThemAndRendersTheRest(String mode) throws Exception {
    var result = run("render", "--state", state().toString(), "--node", "node-a", "--mode", mode);

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err())
        .doesNotContain("NullPointerException")
        .contains("shop/web spec.ports[0].port")
        .contains("shop/web spec.ports[1]: null")
        .contains("EndpointSlice shop/web-1 endpoints[0]: null")
        .contains("hints.forZones[0].name")
        .contains("hints.forNodes[0].name");
    assertThat(result.out()).contains("10.244.1.5").contains("192.0.2.20");
  }

  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void explainSkipsNullFieldsAndExplainsTheRest(String output) throws Exception {
    var result = run("explain", "--state", state().toString(), "--node", "node-a", "-o", output);

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).doesNotContain("NullPointerException");
    assertThat(result.out()).contains("10.244.1.5:8080");
  }

  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void explainShowsWhichServiceKeepsAnAddressTwoClaim(String output) throws Exception {
    var file = directory.resolve("collision.yaml");
    Files.writeString(
        file,
        NODE
            + """
        apiVersion: v1
        kind: Service
        metadata: {name: a, namespace: evil}
        spec:
          clusterIP: 10.96.0.99
          externalIPs: [10.96.0.10]
          ports: [{name: http, port: 80}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: good}
        spec:
          clusterIP: 10.96.0.10
          ports: [{name: http, port: 80}]
        """);

    var result = run("explain", "--state", file.toString(), "--node", "node-a", "-o", output);

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .contains(
            "10.96.0.10 tcp/80: externalIP of evil/a:http collides with the clusterIP of"
                + " good/web:http; good/web:http keeps it");
    if (output.equals("json")) {
      assertThat(result.out()).contains("\"addressCollisions\"");
    } else {
      assertThat(result.out()).contains("  collision:      10.96.0.10 tcp/80");
    }
  }
}
