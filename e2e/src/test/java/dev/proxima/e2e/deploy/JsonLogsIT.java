package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code --log-format=json} every line the proxy's container writes is JSON, from the first:
 * the packaged jar started as the DaemonSet starts it, through the image's entrypoint with the
 * DaemonSet's arguments and environment, and nothing else in its environment (the JVM announces
 * some variables, such as JAVA_TOOL_OPTIONS, in a line of its own).
 */
class JsonLogsIT {
  private static final Path REPOSITORY = Kustomize.repositoryRoot();
  private static final Path JAR =
      Path.of(
              System.getProperty(
                  "proxima.proxy.jar",
                  REPOSITORY.resolve("proxy/target/proxima-proxy.jar").toString()))
          .toAbsolutePath();

  @TempDir Path work;

  @Test
  void everyLineTheProxyContainerWritesWithJsonLogsIsAJsonObject() throws Exception {
    var container = proxyContainer();
    assertThat(container.getArgs()).contains("--log-format=json");
    var process = startLikeTheDaemonSet(container);
    var stdout = work.resolve("stdout");
    var stderr = work.resolve("stderr");
    try {
      // Started, and failing to reach the (unreachable) API server: the start's lines are out.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> Files.readString(stdout).contains("Cannot list from the API server"));
    } finally {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }

    var lines = new ArrayList<String>();
    lines.addAll(Files.readAllLines(stdout));
    lines.addAll(Files.readAllLines(stderr));
    var json = new ObjectMapper();
    assertThat(lines)
        .isNotEmpty()
        .allSatisfy(
            line -> assertThat(isJsonObject(json, line)).as("a JSON object: %s", line).isTrue());
    assertThat(Files.readString(stdout)).contains("\"message\":\"Starting proxima-proxy\"");
  }

  private static boolean isJsonObject(ObjectMapper json, String line) {
    try {
      return json.readTree(line).isObject();
    } catch (IOException notJson) {
      return false;
    }
  }

  private static Container proxyContainer() throws IOException {
    var daemonSet =
        new KubernetesSerialization()
            .unmarshal(
                Files.readString(REPOSITORY.resolve("deploy/base/proxy-daemonset.yaml")),
                DaemonSet.class);
    return daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  /**
   * The image's entrypoint with the paths of this build, the container's arguments (as a dry run,
   * on loopback ports of the system's choosing, against an API server nothing answers at) and the
   * container's literal environment variables.
   */
  private Process startLikeTheDaemonSet(Container container) throws IOException {
    var entrypoint =
        Files.readString(REPOSITORY.resolve("deploy/images/proxy/entrypoint"))
            .replace("/opt/java", System.getProperty("java.home"))
            .replace("/opt/proxima/proxima-proxy.jar", JAR.toString());
    var script = Files.writeString(work.resolve("entrypoint"), entrypoint);
    var kubeconfig =
        Files.writeString(
            work.resolve("kubeconfig"),
            """
            apiVersion: v1
            kind: Config
            clusters:
            - name: nowhere
              cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
            users:
            - name: nobody
              user: {token: none}
            contexts:
            - name: nowhere
              context: {cluster: nowhere, user: nobody}
            current-context: nowhere
            """);
    var command = new ArrayList<>(List.of("sh", script.toString()));
    for (var arg : container.getArgs()) {
      if (!arg.contains("-bind-address=")) {
        command.add(arg);
      }
    }
    command.addAll(
        List.of(
            "--dry-run",
            "--node-name=node-a",
            "--kubeconfig=" + kubeconfig,
            "--healthz-bind-address=127.0.0.1:0",
            "--metrics-bind-address=127.0.0.1:0",
            "--explain-bind-address=127.0.0.1:0"));
    var builder =
        new ProcessBuilder(command)
            .redirectOutput(work.resolve("stdout").toFile())
            .redirectError(work.resolve("stderr").toFile());
    var environment = builder.environment();
    environment.clear();
    environment.put("PATH", "/usr/bin:/bin");
    container.getEnv().stream()
        .filter(variable -> variable.getValue() != null)
        .forEach(variable -> environment.put(variable.getName(), variable.getValue()));
    return builder.start();
  }
}
