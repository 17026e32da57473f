package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.testing.JarCommand;
import dev.proxima.testing.ReachableApiServer;
import dev.proxima.testing.RefusingApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run}'s answers to a kubeconfig or API server it cannot use, from the packaged jar. */
class ProxyCliIT {
  private static final Path JAR = Path.of("target", "proxima-proxy.jar");

  @TempDir Path directory;

  private JarCommand jar() {
    return JarCommand.outsideAPod(JAR, directory);
  }

  /** A dry run on ports nobody else uses, so that only the kubeconfig or API server can fail. */
  private static String[] dryRun(String... more) {
    var args = new ArrayList<String>();
    args.addAll(
        List.of(
            "run",
            "--node-name=node-a",
            "--dry-run",
            "--healthz-bind-address=127.0.0.1:0",
            "--metrics-bind-address=127.0.0.1:0",
            "--explain-bind-address=127.0.0.1:0"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** A dry run whose kubeconfig names {@code server}. */
  private JarCommand.Running dryRunAgainst(String server) {
    return jar()
        .start(
            dryRun(
                "--kubeconfig",
                ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), server).toString()));
  }

  @Test
  void helpListsEveryCommandAndTheOfflineOnesTakeAStateFileOrAKubeconfig() {
    var help = jar().run("--help");
    var explain = jar().run("explain", "--help");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("run", "explain", "render", "cleanup");
    assertThat(explain.out())
        .contains("(--state=FILE |", "--kubeconfig=FILE)", "--node=NAME")
        .contains("2   the state file, the kubeconfig, the node or the options are");
  }

  @Test
  void aMissingKubeconfigIsOneLineAndExitCodeTwo() {
    var missing = directory.resolve("nonexistent");

    var result = jar().run(dryRun("--kubeconfig", missing.toString()));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("error: kubeconfig " + missing + " does not exist\n");
  }

  @Test
  void aMalformedKubeconfigNamesTheLineAndColumn() throws Exception {
    var garbage = Files.writeString(directory.resolve("garbage"), "users:\n- name: [x\n");

    var result = jar().run(dryRun("--kubeconfig", garbage.toString()));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: kubeconfig " + garbage + " is not valid: at line ")
        .hasLineCount(1);
  }

  @Test
  void anEmptyKubeconfigIsAnErrorNotAFallBackToInCluster() throws Exception {
    var empty = Files.writeString(directory.resolve("empty"), "{}\n");

    var result = jar().run(dryRun("--kubeconfig", empty.toString()));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo(
            "error: kubeconfig "
                + empty
                + " has no current-context and no contexts (is it empty?)\n");
  }

  @Test
  void theManifestsPlaceholderApiServerIsRefusedNamingTheConfigMapKey() throws Exception {
    var kubeconfig =
        ReachableApiServer.kubeconfig(
            directory.resolve("kubeconfig"), "https://set-api-server-host.invalid:6443");

    var result = jar().run(dryRun("--kubeconfig", kubeconfig.toString()));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: the API server address is still the manifests' placeholder")
        .contains("api-server-host", "proxima-proxy ConfigMap")
        .hasLineCount(1);
  }

  @Test
  void noKubeconfigOutsideAPodIsAnErrorNotAGuess() {
    var result = jar().run(dryRun());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: no kubeconfig: not running in a pod (KUBERNETES_SERVICE_HOST is unset)")
        .hasLineCount(1);
  }

  @Test
  void anUnreachableApiServerIsOneWarningPerRetryNamingTheUrlAndNoStackTrace() throws Exception {
    var closed = RefusingApiServer.closedPortUrl();
    var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), closed);
    var url = "url=" + closed + "/api/v1/services";

    try (var proxy = jar().start(dryRun("--kubeconfig", kubeconfig.toString()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> proxy.errSoFar().lines().filter(line -> line.contains(url)).count() >= 2);

      var log = proxy.errSoFar();
      assertThat(log.lines().filter(line -> line.contains(url)))
          .allSatisfy(
              line ->
                  assertThat(line)
                      .contains("WARN", "Cannot list from the API server; retrying")
                      .contains("cause=connection refused"));
      assertThat(log).doesNotContain("\tat ");
    }
  }

  @Test
  void refusedCredentialsAreNamedAs403() throws Exception {
    try (var api = new RefusingApiServer(403, "Forbidden", "services is forbidden");
        var proxy = dryRunAgainst(api.url())) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> proxy.errSoFar().contains("cause=403 Forbidden"));

      assertThat(proxy.errSoFar())
          .contains(
              "cause=403 Forbidden: the credentials may not do this (check RBAC): services is forbidden")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void anApiServerWithoutTheServiceCidrApiIsSaidOnceAndNotAskedAgain() throws Exception {
    try (var api = new RefusingApiServer(404, "NotFound", "the server could not find it");
        var proxy = dryRunAgainst(api.url())) {
      var serviceCidrs = "url=" + api.url() + "/apis/networking.k8s.io/v1/servicecidrs";
      // The Services informer retries its own 404s meanwhile; two of its warnings show time passed.
      var services = "url=" + api.url() + "/api/v1/services";
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> proxy.errSoFar().lines().filter(line -> line.contains(services)).count() >= 2);

      assertThat(proxy.errSoFar().lines().filter(line -> line.contains(serviceCidrs)))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("INFO", "The API server does not serve ServiceCIDRs")
                      .doesNotContain("retrying"));
    }
  }
}
