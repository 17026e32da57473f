package dev.proxima.controller;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.testing.ProcessFixtures;
import dev.proxima.testing.ReachableApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as its own process against the embedded API server: its work, its JSON logs, its
 * metrics and its version.
 */
class ControllerProcessIT {
  @TempDir Path directory;

  private ReachableApiServer apiServer;
  private KubernetesClient client;
  private Process controller;
  private Path log;

  @BeforeEach
  void startApiServer() {
    apiServer = new ReachableApiServer();
    client = apiServer.client();
  }

  @AfterEach
  void stopEverything() throws IOException {
    if (controller != null && controller.isAlive()) {
      controller.destroyForcibly();
    }
    apiServer.close();
    if (log != null && Files.exists(log)) {
      System.out.println("controller log:\n" + Files.readString(log));
    }
  }

  private Path kubeconfig() {
    return ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), apiServer.url());
  }

  private static int status(int port, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException | InterruptedException notYet) {
      return -1;
    }
  }

  private static String body(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The controller's JSON log lines with this message. */
  private List<JsonNode> logLines(String message) throws IOException {
    var mapper = new ObjectMapper();
    var lines = new java.util.ArrayList<JsonNode>();
    for (var line : Files.readAllLines(log)) {
      if (line.startsWith("{\"@timestamp\"")) {
        var json = mapper.readTree(line);
        if (message.equals(json.path("message").asText())) {
          lines.add(json);
        }
      }
    }
    return lines;
  }

  @Test
  void dashVPrintsTheVersionAndTheCommitTheJarWasBuiltFrom() throws Exception {
    log = directory.resolve("version.txt");
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    controller =
        new ProcessBuilder(
                List.of(java, "-jar", Path.of("target", "proxima-controller.jar").toString(), "-V"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();

    assertThat(controller.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(controller.exitValue()).isZero();
    assertThat(Files.readString(log))
        .matches("proxima-controller \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{12}\\)\\n");
  }

  @Test
  void writesHintsThenStopsCleanlyOnSigtermAndReleasesTheLease() throws Exception {
    client.resource(service("svc", "PreferSameZone")).create();
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    int metricsPort = ProcessFixtures.freePort();
    int probePort = ProcessFixtures.freePort();
    log = directory.resolve("controller.log");
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    controller =
        new ProcessBuilder(
                List.of(
                    java,
                    "-jar",
                    Path.of("target", "proxima-controller.jar").toString(),
                    "run",
                    "--kubeconfig=" + kubeconfig(),
                    "--metrics-bind-address=127.0.0.1:" + metricsPort,
                    "--health-probe-bind-address=127.0.0.1:" + probePort,
                    "--leader-election-namespace=test",
                    "--leader-election-identity=process-it",
                    "--log-format=json"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace("test")
                            .withName("s1")
                            .get()
                            .getEndpoints()
                            .get(0)
                            .getHints())
                    .isNotNull());
    assertThat(status(probePort, "/readyz")).isEqualTo(200);
    assertThat(status(metricsPort, "/metrics")).isEqualTo(200);
    assertThat(body(metricsPort, "/metrics"))
        .containsPattern("proxima_build_info\\{revision=\"[0-9a-f]{40}\",version=\"[^\"]+\"} 1");
    // One summary for the pass instead of a line per slice; the startup line names the build.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(logLines("Reconciled Services")).isNotEmpty());
    var pass = logLines("Reconciled Services").get(0);
    assertThat(pass.path("level").asText()).isEqualTo("INFO");
    assertThat(pass.path("passes").asInt()).isEqualTo(1);
    // How many reconciles fall in the pass depends on event timing: the Service's add, its slice's
    // add, and the echo of the controller's own write may each queue it within the pass (on a
    // loaded machine all three do). What must hold is one write, whatever the count.
    assertThat(pass.path("services").asInt()).isPositive();
    assertThat(pass.path("slicesUpdated").asInt()).isEqualTo(1);
    assertThat(pass.path("errors").asInt()).isZero();
    assertThat(logLines("Updated EndpointSlice hints")).isEmpty();
    var starting = logLines("Starting proxima-controller");
    assertThat(starting).hasSize(1);
    assertThat(starting.get(0).path("revision").asText()).matches("[0-9a-f]{12}");
    assertThat(starting.get(0).path("version").asText()).isNotBlank();
    assertThat(
            client
                .leases()
                .inNamespace("test")
                .withName("proxima-controller")
                .get()
                .getSpec()
                .getHolderIdentity())
        .isEqualTo("process-it");

    controller.destroy();

    assertThat(controller.waitFor(30, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
    assertThat(controller.exitValue()).isZero();
    // fabric8 releases by shortening the lease to one second (a merge patch cannot clear the
    // holder), which lets a standby take over at once instead of after the full 15 seconds.
    var lease = client.leases().inNamespace("test").withName("proxima-controller").get().getSpec();
    assertThat(lease.getLeaseDurationSeconds()).as("lease released: %s", lease).isEqualTo(1);
  }
}
