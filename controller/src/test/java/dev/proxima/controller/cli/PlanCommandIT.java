package dev.proxima.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.testing.ExportedCluster;
import dev.proxima.testing.JarCommand;
import dev.proxima.testing.ReachableApiServer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code plan} as operators run it: the packaged jar as its own process. */
class PlanCommandIT {
  @TempDir Path directory;

  /** The exit code, stdout and stderr of one run of the packaged jar. */
  record Run(int exitCode, String out, String err) {}

  Run run(String... args) {
    var result = new JarCommand(JAR, directory).run(args);
    return new Run(result.exitCode(), result.out(), result.err());
  }

  static final Path JAR = Path.of("target", "proxima-controller.jar");

  private Path stateFile() throws Exception {
    var file = directory.resolve("cluster.yaml");
    try (var stream = getClass().getResourceAsStream("/plan/cluster.yaml")) {
      Files.copy(stream, file);
    }
    return file;
  }

  @Test
  void printsEverySliceAsTheControllerWouldLeaveItWithItsEventsAsJson() throws Exception {
    var result = run("plan", "--state", stateFile().toString(), "-o", "json");

    assertThat(result.exitCode()).isZero();
    JsonNode plan = new ObjectMapper().readTree(result.out());
    var slices = plan.get("endpointSlices");
    assertThat(slices).hasSize(3);
    var web = slices.get(0);
    assertThat(web.at("/metadata/name").asText()).isEqualTo("web-abc");
    assertThat(web.at("/endpoints/0/hints/forZones/0/name").asText()).isEqualTo("zone-a");
    assertThat(web.at("/endpoints/0/hints/forNodes/0/name").asText()).isEqualTo("node-1");
    assertThat(web.at("/endpoints/1/hints/forZones").isMissingNode())
        .as("no zone, no zone hint")
        .isTrue();
    assertThat(web.at("/endpoints/1/hints/forNodes/0/name").asText()).isEqualTo("node-2");
    assertThat(slices.get(1).at("/endpoints/0/hints").isMissingNode())
        .as("unsupported value removes hints")
        .isTrue();
    assertThat(slices.get(2).at("/endpoints/0/hints/forZones/0/name").asText())
        .as("unlabelled slice untouched")
        .isEqualTo("zone-z");

    var events = plan.get("events");
    assertThat(events).hasSize(1);
    assertThat(events.get(0).get("object").asText()).isEqualTo("shop/legacy");
    assertThat(events.get(0).get("type").asText()).isEqualTo("Warning");
    assertThat(events.get(0).get("reason").asText()).isEqualTo("UnsupportedTrafficDistribution");
    assertThat(events.get(0).get("message").asText()).contains("SomethingNew");
    assertThat(result.err())
        .contains("shop/stray has no kubernetes.io/service-name label")
        .contains("ConfigMap ignored");
  }

  private Path autoState(String secondNodeZoneLabel) throws Exception {
    var file = directory.resolve("auto.yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Node
        metadata: {name: n1, labels: {topology.kubernetes.io/zone: zone-a}}
        status:
          allocatable: {cpu: "4"}
          conditions: [{type: Ready, status: "True"}]
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n2, labels: {%s}}
        status:
          allocatable: {cpu: "4"}
          conditions: [{type: Ready, status: "True"}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: api, namespace: shop, annotations: {service.kubernetes.io/topology-mode: Auto}}
        spec: {trafficDistribution: PreferSameNode, ports: [{port: 80}]}
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: api-1, namespace: shop, labels: {kubernetes.io/service-name: api}}
        addressType: IPv4
        endpoints:
        - {addresses: ["10.1.0.1"], zone: zone-a, nodeName: n1, conditions: {ready: true}}
        - {addresses: ["10.1.0.2"], zone: zone-b, nodeName: n2, conditions: {ready: true}, hints: {forZones: [{name: zone-b}]}}
        """
            .formatted(secondNodeZoneLabel));
    return file;
  }

  @Test
  void plansAutoServicesFromTheNodesInTheStateFile() throws Exception {
    var result =
        run(
            "plan",
            "--state",
            autoState("topology.kubernetes.io/zone: zone-b").toString(),
            "-o",
            "json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    var plan = new ObjectMapper().readTree(result.out());
    var endpoints = plan.at("/endpointSlices/0/endpoints");
    assertThat(endpoints.at("/0/hints/forZones/0/name").asText()).isEqualTo("zone-a");
    assertThat(endpoints.at("/1/hints/forZones/0/name").asText()).isEqualTo("zone-b");
    assertThat(endpoints.at("/0/hints/forNodes").isMissingNode())
        .as("Auto wins over PreferSameNode")
        .isTrue();
    assertThat(plan.at("/events/0/reason").asText()).isEqualTo("TopologyAwareHintsEnabled");
    assertThat(plan.at("/events/0/message").asText())
        .isEqualTo("Topology Aware Hints has been enabled, addressType: IPv4");
  }

  @Test
  void showsTheSafeguardAnAutoServiceWouldHit() throws Exception {
    var result =
        run("plan", "--state", autoState("kubernetes.io/hostname: n2").toString(), "-o", "json");

    var plan = new ObjectMapper().readTree(result.out());
    assertThat(plan.at("/endpointSlices/0/endpoints/1/hints").isMissingNode()).isTrue();
    assertThat(plan.at("/events/0/type").asText()).isEqualTo("Warning");
    assertThat(plan.at("/events/0/reason").asText()).isEqualTo("TopologyAwareHintsDisabled");
    assertThat(plan.at("/events/0/message").asText())
        .isEqualTo(
            "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4");
  }

  @Test
  void printsYamlByDefault() throws Exception {
    var result = run("plan", "--state", stateFile().toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("endpointSlices:").contains("events:").contains("forNodes:");
  }

  @Test
  void aMalformedStateFileExitsWithTwoAndNamesTheDocumentAndField() throws Exception {
    var file = directory.resolve("bad.yaml");
    Files.writeString(
        file,
        """
        kind: EndpointSlice
        apiVersion: discovery.k8s.io/v1
        metadata: {name: s, namespace: ns}
        addressType: IPv4
        endpoints: "not a list"
        """);

    var result = run("plan", "--state", file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: ")
        .contains("document 1")
        .contains("EndpointSlice ns/s")
        .contains("field endpoints");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aMissingStateFileExitsWithTwo() {
    var result = run("plan", "--state", directory.resolve("nope.yaml").toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("does not exist");
  }

  @Test
  void aBrokenYamlFileNamesTheLineAndColumn() throws Exception {
    var file = directory.resolve("broken.yaml");
    Files.writeString(
        file, "apiVersion: v1\nitems:\n- kind: Node\n  metadata: {name: a\n- kind: Node\n");

    var result = run("plan", "--state", file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().strip())
        .startsWith("error: " + file + ": document 1 is not valid YAML at line 5, column ")
        .doesNotContain("\tat ")
        .hasLineCount(1);
  }

  @Test
  void diffPrintsOnlyTheSlicesThatWouldChangeWithTheirHintsBeforeAndAfter() throws Exception {
    var result = run("plan", "--state", stateFile().toString(), "--diff");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            """
            EndpointSlice shop/web-abc (Service shop/web)
              10.1.0.5 (node-1, zone-a): <no hints> -> forZones=[zone-a] forNodes=[node-1]
              10.1.0.6 (node-2, <no zone>): <no hints> -> forNodes=[node-2]
            EndpointSlice shop/legacy-xyz (Service shop/legacy)
              10.1.0.7 (<no node>, zone-b): forZones=[zone-b] -> <no hints>
            2 of 3 EndpointSlices would change.
            event: Warning shop/legacy UnsupportedTrafficDistribution: spec.trafficDistribution "SomethingNew" is not supported (PreferSameZone, PreferSameNode or PreferClose); routing stays cluster-wide and hints are removed
            Service shop/legacy conditions:
              proxima.dev/TrafficDistributionAccepted=False UnsupportedValue: spec.trafficDistribution "SomethingNew" is not supported (PreferSameZone, PreferSameNode or PreferClose); routing stays cluster-wide
              proxima.dev/TrafficDistributionProgrammed=False NotAccepted: No hints are planned for a value not accepted
            Service shop/web conditions:
              proxima.dev/TrafficDistributionAccepted=True Accepted: PreferSameNode is implemented
              proxima.dev/TrafficDistributionProgrammed=False NoZoneSpecified: 1 ready endpoint(s) have no zone, so they carry no zone hint
            """);
  }

  private Path kcmState() throws Exception {
    var file = directory.resolve("kcm.yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Service
        metadata: {name: close, namespace: shop, generation: 4}
        spec: {trafficDistribution: PreferClose, ports: [{port: 80}]}
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata:
          name: close-1
          namespace: shop
          labels:
            kubernetes.io/service-name: close
            endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io
        addressType: IPv4
        endpoints:
        - {addresses: ["10.1.0.1"], zone: zone-a, nodeName: n1, conditions: {ready: true}}
        """);
    return file;
  }

  @Test
  void slicesAutoLeavesKubeControllerManagersSlicesToItByTheServerVersionGiven() throws Exception {
    var state = kcmState().toString();

    var v133 =
        run("plan", "--state", state, "--slices", "auto", "--server-version", "1.33", "-o", "json");
    var v130 = run("plan", "--state", state, "--server-version", "v1.30.4", "-o", "json");
    var noVersion = run("plan", "--state", state, "-o", "json");

    assertThat(v133.exitCode()).as(v133.err()).isZero();
    var plan = new ObjectMapper().readTree(v133.out());
    assertThat(plan.at("/endpointSlices/0/endpoints/0/hints").isMissingNode())
        .as("1.33's KCM hints PreferClose itself")
        .isTrue();
    var programmed = plan.at("/serviceConditions/0/conditions/1");
    assertThat(programmed.get("type").asText())
        .isEqualTo("proxima.dev/TrafficDistributionProgrammed");
    assertThat(programmed.get("reason").asText()).isEqualTo("ManagedByKubeControllerManager");
    assertThat(programmed.get("observedGeneration").asLong()).isEqualTo(4);
    assertThat(programmed.get("message").asText()).contains("close-1");

    var older = new ObjectMapper().readTree(v130.out());
    assertThat(older.at("/endpointSlices/0/endpoints/0/hints/forZones/0/name").asText())
        .as("1.30's KCM does not: Proxima hints it")
        .isEqualTo("zone-a");
    assertThat(older.at("/serviceConditions/0/conditions/1/reason").asText())
        .isEqualTo("Programmed");

    assertThat(noVersion.err()).contains("--slices=auto without --server-version plans as");
    assertThat(
            new ObjectMapper()
                .readTree(noVersion.out())
                .at("/endpointSlices/0/endpoints/0/hints/forZones/0/name")
                .asText())
        .isEqualTo("zone-a");
  }

  /** A CRUD mock that answers /version as an API server of {@code minor} does. */
  private static KubernetesMockServer apiServerOfVersion(String minor) {
    var server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher() {
              @Override
              public MockResponse dispatch(RecordedRequest request) {
                return request.getPath().equals("/version")
                    ? new MockResponse()
                        .setResponseCode(200)
                        .setBody(
                            "{\"major\": \"1\", \"minor\": \""
                                + minor
                                + "\", \"gitVersion\": \"v1."
                                + minor
                                + ".0\"}")
                    : super.dispatch(request);
              }
            },
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    return server;
  }

  private Run planFromCluster(String minor) throws Exception {
    var server = apiServerOfVersion(minor);
    try (var client = server.createClient()) {
      var state = dev.proxima.model.state.StateFile.load(kcmState());
      state.services().forEach(service -> client.resource(service).create());
      state.endpointSlices().forEach(slice -> client.resource(slice).create());
      var kubeconfig =
          ReachableApiServer.kubeconfig(
              directory.resolve("kubeconfig-" + minor), "http://127.0.0.1:" + server.getPort());
      return run("plan", "--kubeconfig", kubeconfig.toString(), "-o", "json");
    } finally {
      server.destroy();
    }
  }

  @Test
  void slicesAutoFromAKubeconfigDecidesByTheClustersVersionAsRunDoes() throws Exception {
    var v133 = planFromCluster("33");
    var v130 = planFromCluster("30");

    assertThat(v133.exitCode()).as(v133.err()).isZero();
    assertThat(v133.err()).contains("--slices=auto decided by the cluster's /version: 1.33");
    assertThat(
            new ObjectMapper()
                .readTree(v133.out())
                .at("/endpointSlices/0/endpoints/0/hints")
                .isMissingNode())
        .as("1.33's KCM hints PreferClose itself")
        .isTrue();
    assertThat(v130.exitCode()).as(v130.err()).isZero();
    assertThat(
            new ObjectMapper()
                .readTree(v130.out())
                .at("/endpointSlices/0/endpoints/0/hints/forZones/0/name")
                .asText())
        .as("1.30's KCM does not: Proxima hints it")
        .isEqualTo("zone-a");
  }

  @Test
  void outputListIsAStateFileWithTheSlicesAsTheControllerLeavesThem() throws Exception {
    var file = stateFile();
    var result = run("plan", "--state", file.toString(), "-o", "list");

    assertThat(result.exitCode()).as(result.err()).isZero();
    var after =
        dev.proxima.model.state.StateFile.load(
            new java.io.ByteArrayInputStream(
                result.out().getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            "plan -o list");
    var before = dev.proxima.model.state.StateFile.load(file);
    assertThat(after.services()).hasSameSizeAs(before.services());
    assertThat(after.nodes()).hasSameSizeAs(before.nodes());
    var web =
        after.endpointSlices().stream()
            .filter(slice -> slice.getMetadata().getName().equals("web-abc"))
            .findFirst()
            .orElseThrow();
    assertThat(web.getEndpoints().get(0).getHints().getForNodes().get(0).getName())
        .isEqualTo("node-1");
  }

  @Test
  void anInvalidServerVersionExitsWithTwo() throws Exception {
    var result = run("plan", "--state", kcmState().toString(), "--server-version", "latest");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--server-version must look like 1.33");
  }

  @Test
  void plansTenThousandServicesOfTenEndpointsExportedAsOneYamlList() throws Exception {
    var file = directory.resolve("big.yaml");
    ExportedCluster.write(file, 10_000, 10, 100, ExportedCluster.Format.YAML);

    var result = new JarCommand(JAR, directory).run("plan", "--state", file.toString(), "--diff");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    System.out.printf(
        "plan --diff of 10,000 x 10 (%d MB of YAML) took %d ms%n",
        Files.size(file) >> 20, result.took().toMillis());
    try (var lines = Files.lines(result.outFile())) {
      var tail = lines.filter(line -> !line.startsWith(" ")).toList();
      assertThat(tail).contains("6667 of 10000 EndpointSlices would change.");
    }
  }

  @Test
  void plansTheSameClusterExportedAsJson() throws Exception {
    var file = directory.resolve("big.json");
    ExportedCluster.write(file, 2_000, 10, 30, ExportedCluster.Format.JSON);

    var result = run("plan", "--state", file.toString(), "-o", "json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    var plan = new ObjectMapper().readTree(result.out());
    assertThat(plan.get("endpointSlices")).hasSize(2_000);
    assertThat(plan.at("/endpointSlices/0/endpoints/0/hints/forZones/0/name").asText())
        .isEqualTo(ExportedCluster.zone(0));
  }

  @Test
  void readsALiveClusterThroughAKubeconfigWithoutWritingToIt() throws Exception {
    try (var api = new ReachableApiServer()) {
      var client = api.client();
      var state = dev.proxima.model.state.StateFile.load(stateFile());
      state.nodes().forEach(node -> client.resource(node).create());
      state.services().forEach(service -> client.resource(service).create());
      state.endpointSlices().forEach(slice -> client.resource(slice).create());
      var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), api.url());

      var result = run("plan", "--kubeconfig", kubeconfig.toString(), "--diff");

      assertThat(result.exitCode()).as(result.err()).isZero();
      assertThat(result.out())
          .contains("EndpointSlice shop/web-abc (Service shop/web)")
          .contains("10.1.0.5 (node-1, zone-a): <no hints> -> forZones=[zone-a] forNodes=[node-1]")
          .contains("2 of 3 EndpointSlices would change.");
      assertThat(
              client
                  .discovery()
                  .v1()
                  .endpointSlices()
                  .inNamespace("shop")
                  .withName("web-abc")
                  .get()
                  .getEndpoints()
                  .get(0)
                  .getHints())
          .as("plan only reads")
          .isNull();
    }
  }

  @Test
  void anUnreachableClusterIsOneLineNamingTheUrlAndExitsWithOne() throws Exception {
    int closed;
    try (var socket = new java.net.ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    var kubeconfig =
        ReachableApiServer.kubeconfig(
            directory.resolve("kubeconfig"), "http://127.0.0.1:" + closed);

    var result = run("plan", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err().strip())
        .isEqualTo(
            "error: cannot list http://127.0.0.1:"
                + closed
                + "/api/v1/services: connection refused (Connection refused: /127.0.0.1:"
                + closed
                + ")");
  }

  @Test
  void aMissingKubeconfigExitsWithTwoNamingIt() {
    var result = run("plan", "--kubeconfig", directory.resolve("nope").toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().strip())
        .isEqualTo("error: kubeconfig " + directory.resolve("nope") + " does not exist");
  }
}
