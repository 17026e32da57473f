package dev.proxima.proxy.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.testing.JarCommand;
import dev.proxima.testing.ProcessFixtures;
import dev.proxima.testing.ReachableApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged proxy jar as its own process, in dry-run mode (no kernel), against a CRUD-mode API
 * server: what it says about itself and what its logs tell an operator.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ProxyProcessIT {
  private static final Path JAR = Path.of("target", "proxima-proxy.jar");

  KubernetesClient client;

  @TempDir Path directory;

  private Process proxy;
  private Path stdout;
  private Path stderr;

  @AfterEach
  void stopTheProxy() throws IOException {
    if (proxy != null && proxy.isAlive()) {
      proxy.destroyForcibly();
    }
    if (stderr != null && Files.exists(stderr)) {
      System.out.println("proxy stderr:\n" + Files.readString(stderr));
    }
    if (stdout != null && Files.exists(stdout)) {
      System.out.println("proxy log lines:");
      jsonLogLines().forEach(System.out::println);
    }
  }

  private Process start(String... args) throws IOException {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(JAR.toString());
    command.addAll(List.of(args));
    stdout = directory.resolve("stdout");
    stderr = directory.resolve("stderr");
    return new ProcessBuilder(command)
        .redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile())
        .start();
  }

  private Path kubeconfig() throws IOException {
    return ReachableApiServer.kubeconfig(
        directory.resolve("kubeconfig"), client.getMasterUrl().toString());
  }

  /** The JSON log lines on stdout; the dry-run rulesets printed there too are skipped. */
  private List<JsonNode> jsonLogLines() throws IOException {
    var mapper = new ObjectMapper();
    var lines = new ArrayList<JsonNode>();
    for (var line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
      if (line.startsWith("{\"@timestamp\"")) {
        lines.add(mapper.readTree(line));
      }
    }
    return lines;
  }

  private List<JsonNode> withMessage(String message) throws IOException {
    return jsonLogLines().stream().filter(l -> message.equals(l.path("message").asText())).toList();
  }

  private void createService(String name, String clusterIp, String... endpointIps) {
    client.resource(ClusterObjects.service("shop", name, clusterIp)).create();
    if (endpointIps.length > 0) {
      client.resource(ClusterObjects.slice("shop", name, "node-a", endpointIps)).create();
    }
  }

  private static String get(int port, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException | InterruptedException notYet) {
      return "";
    }
  }

  @Test
  void dashVPrintsTheVersionAndTheCommitTheJarWasBuiltFrom() throws Exception {
    proxy = start("-V");

    assertThat(proxy.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(proxy.exitValue()).isZero();
    assertThat(Files.readString(stdout))
        .matches("proxima-proxy \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{12}\\)\\n");
  }

  @Test
  void itsJsonLogsTellTheStoryAndTheKubeProxyConfigurationIsAppliedUnderTheFlags()
      throws Exception {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    createService("web", "10.96.0.20", "10.244.1.5", "10.244.1.6");
    var config = directory.resolve("config.conf");
    int metricsPort = ProcessFixtures.freePort();
    Files.writeString(
        config,
        """
        apiVersion: kubeproxy.config.k8s.io/v1alpha1
        kind: KubeProxyConfiguration
        clusterCIDR: 10.244.0.0/16
        metricsBindAddress: 127.0.0.1:1
        oomScoreAdj: -999
        logging: {format: json}
        """);

    proxy =
        start(
            "run",
            "--dry-run",
            "--node-name=node-a",
            "--kubeconfig=" + kubeconfig(),
            "--config=" + config,
            "--healthz-bind-address=127.0.0.1:" + ProcessFixtures.freePort(),
            "--metrics-bind-address=127.0.0.1:" + metricsPort,
            "--explain-bind-address=127.0.0.1:0");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(withMessage("Synced proxy rules")).hasSize(2));
    var starting = withMessage("Starting proxima-proxy");
    assertThat(starting).hasSize(1);
    assertThat(starting.get(0).path("version").asText()).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(starting.get(0).path("revision").asText()).matches("[0-9a-f]{12}");
    var ipv4 =
        withMessage("Synced proxy rules").stream()
            .filter(l -> l.path("family").asText().equals("IPv4"))
            .findFirst()
            .orElseThrow();
    assertThat(ipv4.path("level").asText()).isEqualTo("INFO");
    assertThat(ipv4.path("full").asBoolean()).isTrue();
    assertThat(ipv4.path("services").asInt()).isEqualTo(1);
    assertThat(ipv4.path("servicePorts").asInt()).isEqualTo(1);
    assertThat(ipv4.path("endpoints").asInt()).isEqualTo(2);
    assertThat(ipv4.path("rules").asInt()).isPositive();
    assertThat(ipv4.has("elapsedMs")).isTrue();
    assertThat(ipv4.path("planMs").asLong())
        .as("a full sync says how much of it the plan took")
        .isBetween(0L, ipv4.path("elapsedMs").asLong());

    // The file's ignored field is named once; its metrics address lost to the flag.
    var warnings =
        jsonLogLines().stream()
            .filter(l -> l.path("level").asText().equals("WARN") && l.has("config"))
            .toList();
    assertThat(warnings)
        .extracting(l -> l.path("message").asText())
        .containsExactly("oomScoreAdj is ignored: set the pod's priority and resources instead");
    assertThat(warnings.get(0).path("config").asText()).isEqualTo(config.toString());
    assertThat(get(metricsPort, "/metrics"))
        .containsPattern("proxima_build_info\\{revision=\"[0-9a-f]{40}\",version=\"[^\"]+\"} 1");

    // A new Service without endpoints yet is a partial sync; the first one after start is summed
    // up at once, later ones wait for the minute.
    createService("api", "10.96.0.30");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(withMessage("Partial syncs"))
                    .anyMatch(l -> l.path("family").asText().equals("IPv4")));
    // Syncs that changed nothing (an event that touched nothing the rules use) are not summed.
    assertThat(withMessage("Partial syncs"))
        .allSatisfy(l -> assertThat(l.path("changedServices").asInt()).isPositive());
    var partial =
        withMessage("Partial syncs").stream()
            .filter(l -> l.path("family").asText().equals("IPv4"))
            .findFirst()
            .orElseThrow();
    assertThat(partial.path("syncs").asInt()).isEqualTo(1);
    assertThat(partial.path("changedServices").asInt()).isEqualTo(1);
    assertThat(partial.path("rules").asInt()).isPositive();
    assertThat(partial.path("since").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    assertThat(withMessage("Synced proxy rules")).as("no full sync for a change").hasSize(2);

    proxy.destroy();
    assertThat(proxy.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(proxy.exitValue()).isZero();
  }

  @Test
  void explainLiveAsItsOwnProcessShowsTheRunningProxysServicesAndSyncState() throws Exception {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    createService("web", "10.96.0.20", "10.244.1.5", "10.244.1.6");
    createService("api", "10.96.0.30", "10.244.1.7");
    int explainPort = ProcessFixtures.freePort();
    proxy =
        start(
            "run",
            "--dry-run",
            "--log-format=json",
            "--node-name=node-a",
            "--kubeconfig=" + kubeconfig(),
            "--healthz-bind-address=127.0.0.1:" + ProcessFixtures.freePort(),
            "--metrics-bind-address=127.0.0.1:" + ProcessFixtures.freePort(),
            "--explain-bind-address=127.0.0.1:" + explainPort);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(withMessage("Synced proxy rules")).hasSize(2));
    assertThat(withMessage("Starting proxima-proxy").get(0).path("explain").asText())
        .isEqualTo("127.0.0.1:" + explainPort);
    var cli = JarCommand.outsideAPod(JAR, directory);

    var json =
        cli.run("explain", "--live", "--explain-port", String.valueOf(explainPort), "-o", "json");

    assertThat(json.exitCode()).as(json.toString()).isZero();
    var report = new ObjectMapper().readTree(json.out());
    assertThat(report.path("node").asText()).isEqualTo("node-a");
    assertThat(report.path("servicePorts"))
        .extracting(row -> row.path("service").asText())
        .containsExactly("shop/api", "shop/web");
    assertThat(report.path("servicePorts").get(1).path("clusterPolicyEndpoints").toString())
        .isEqualTo("[\"10.244.1.5:8080\",\"10.244.1.6:8080\"]");
    assertThat(report.path("servicePorts").get(1).has("observedLocality")).isTrue();
    assertThat(report.path("servicePorts").get(1).path("observedLocality").isNull()).isTrue();
    var ipv4 = report.path("sync").path("families").get(0);
    assertThat(ipv4.path("family").asText()).isEqualTo("IPv4");
    assertThat(ipv4.path("lastFullSync").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    assertThat(ipv4.path("rulesLoaded").asInt()).isPositive();
    assertThat(ipv4.path("servicePorts").asInt()).isEqualTo(2);
    assertThat(ipv4.path("lastError").isNull()).isTrue();
    assertThat(report.path("sync").path("pendingChanges").path("services").asInt()).isZero();
    // The nftables mode counts per Service (--observe-locality=annotated); shop/web is not
    // annotated, so its port above has no figures.
    assertThat(report.path("observedLocality").path("counted").asBoolean()).isTrue();

    // Inside the proxy's pod the CLI finds the port in the container's environment.
    var inThePod =
        new JarCommand(
            JAR,
            directory,
            java.util.Map.of("PROXIMA_EXPLAIN_BIND_ADDRESS", "127.0.0.1:" + explainPort),
            Duration.ofMinutes(1));
    var text = inThePod.run("explain", "--live", "--service", "shop/web");

    assertThat(text.exitCode()).as(text.toString()).isZero();
    assertThat(text.out())
        .startsWith("Node node-a (zone zone-a), IPv4: 1 service ports\n")
        .contains("shop/web port http/TCP")
        .contains("  Cluster policy: 10.244.1.5:8080, 10.244.1.6:8080\n")
        .doesNotContain("shop/api")
        .contains("Sync state of the proxy on node-a at ")
        .containsPattern("  IPv4: +last full sync \\d{4}-")
        .contains("  observed:  not counted per Service (annotate the Service")
        .contains("observed locality:  counted\n");
  }

  @Test
  void explainLiveWithNoProxyListeningExitsOneNamingThePort() throws Exception {
    int closed = ProcessFixtures.freePort();

    var result =
        JarCommand.outsideAPod(JAR, directory)
            .run("explain", "--live", "--explain-port", String.valueOf(closed));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("error: no proxy answers on 127.0.0.1 port " + closed + ": ")
        .contains("--explain-bind-address");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aConfigFileOfAnotherKindExitsTwoWithOneLineNamingIt() throws Exception {
    var config = directory.resolve("kube-proxy.yaml");
    Files.writeString(config, "apiVersion: v1\nkind: ConfigMap\ndata: {}\n");

    proxy = start("run", "--node-name=node-a", "--config=" + config);

    assertThat(proxy.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(proxy.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(stderr))
        .singleElement()
        .asString()
        .startsWith(
            "error: " + config + ": this is a ConfigMap; give the file its config.conf key");
  }
}
