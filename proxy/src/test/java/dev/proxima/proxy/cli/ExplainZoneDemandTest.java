package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The offline explain computes a port's zone spill-over from the demand it is given. */
class ExplainZoneDemandTest {
  @TempDir Path directory;

  private record Run(int exitCode, String out, String err) {}

  private Run explain(String... more) throws Exception {
    var state = directory.resolve("state.yaml");
    var endpoints = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      var zone = i < 2 ? "zone-a" : "zone-b";
      endpoints.append(
          """
          - addresses: [10.244.0.%d]
            conditions: {ready: true}
            hints: {forZones: [{name: %s}]}
          """
              .formatted(10 + i, zone));
    }
    Files.writeString(
        state,
        """
        apiVersion: v1
        kind: Node
        metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-a}}
        ---
        apiVersion: v1
        kind: Service
        metadata:
          name: web
          namespace: shop
          annotations: {proxima.dev/zone-spill-over: "true"}
        spec:
          clusterIP: 10.96.0.20
          trafficDistribution: PreferSameZone
          ports: [{name: http, port: 80}]
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: web-1, namespace: shop, labels: {kubernetes.io/service-name: web}}
        addressType: IPv4
        ports: [{name: http, port: 8080, protocol: TCP}]
        endpoints:
        """
            + endpoints);
    var args =
        new java.util.ArrayList<>(
            java.util.List.of("explain", "--state", state.toString(), "--node", "node-a"));
    args.addAll(java.util.List.of(more));
    var out = new StringWriter();
    var err = new StringWriter();
    var line = ProxyMain.commandLine();
    line.setOut(new PrintWriter(out));
    line.setErr(new PrintWriter(err));
    int code = line.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void withTheDemandGivenExplainPrintsTheFraction() throws Exception {
    var run = explain("--zone-demand", "zone-a=0.500,zone-b=0.500");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("spill-over:     p=0.375, the rest spread over 10 ready endpoints");
  }

  @Test
  void withoutItOrWithARefusedOneTheDemandIsUnknownAndSaysWhy() throws Exception {
    assertThat(explain().out()).contains("spill-over:     zone demand unknown");

    var refused = explain("--zone-demand", "zone-a=lots,zone-b=0.5");
    assertThat(refused.exitCode()).isZero();
    assertThat(refused.err())
        .contains("note: --zone-demand: proxima-zone-demand holds zone zone-a");
    assertThat(refused.out()).contains("spill-over:     zone demand unknown");
  }
}
