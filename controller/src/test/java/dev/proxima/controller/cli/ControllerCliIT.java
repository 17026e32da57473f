package dev.proxima.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.testing.JarCommand;
import dev.proxima.testing.ReachableApiServer;
import dev.proxima.testing.RefusingApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The controller jar's command line and its errors, run as an operator runs it. */
class ControllerCliIT {
  private static final Path JAR = Path.of("target", "proxima-controller.jar");

  @TempDir Path directory;

  private JarCommand jar() {
    return JarCommand.outsideAPod(JAR, directory);
  }

  private JarCommand.Result run(String... args) {
    return jar().run(args);
  }

  /** run with ports nobody else uses, so that only the kubeconfig can fail. */
  private JarCommand.Result runWith(String... kubeconfigArgs) {
    var args = new java.util.ArrayList<String>();
    args.add("run");
    args.addAll(java.util.List.of(kubeconfigArgs));
    args.add("--metrics-bind-address=127.0.0.1:0");
    args.add("--health-probe-bind-address=127.0.0.1:0");
    return run(args.toArray(String[]::new));
  }

  @Test
  void helpListsEverySubcommand() {
    var result = run("--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("run").contains("plan").doesNotContain("demo");
  }

  @Test
  void withoutASubcommandItExitsWithUsage() {
    var result = run();

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("a subcommand is required").contains("Usage:");
  }

  @Test
  void runHelpNamesTheEnvironmentVariablesAndDefaults() {
    var result = run("run", "--help");

    assertThat(result.out())
        .contains("--leader-elect")
        .contains("--workers")
        .contains("default: 5")
        .contains("--resync-period")
        .contains("--log-format")
        .contains("--kubeconfig=FILE")
        .contains("PROXIMA_");
  }

  @Test
  void planHelpShowsBothSourcesDiffAndExitCodes() {
    var result = run("plan", "--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("(--state=FILE |")
        .contains("--kubeconfig=FILE)")
        .contains("--diff")
        .contains("1   the cluster of --kubeconfig could not be listed")
        .contains("2   the state file, the kubeconfig or the options are invalid");
  }

  @Test
  void runRejectsABadBindAddressBeforeTouchingAnything() {
    var result = run("run", "--metrics-bind-address", "nonsense");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("'nonsense' is not a bind address");
  }

  @Test
  void aBadDurationSaysHowToWriteOne() {
    var result = run("run", "--resync-period", "soon");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("'soon' is not a duration");
  }

  @Test
  void aMissingKubeconfigIsOneLineAndExitCodeTwo() {
    var missing = directory.resolve("nonexistent");

    var result = runWith("--kubeconfig", missing.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("error: kubeconfig " + missing + " does not exist\n");
  }

  @Test
  void anUnreadableKubeconfigIsOneLineAndExitCodeTwo() {
    // Root reads any file, so a directory stands in for a file that cannot be read.
    var result = runWith("--kubeconfig", directory.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("error: kubeconfig " + directory + " cannot be read: it is a directory\n");
  }

  @Test
  void aMalformedKubeconfigNamesTheLineAndColumn() throws Exception {
    var garbage = Files.writeString(directory.resolve("garbage"), "clusters: [\n");

    var result = runWith("--kubeconfig", garbage.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: kubeconfig " + garbage + " is not valid: at line 2, column 1: ")
        .hasLineCount(1);
  }

  @Test
  void anEmptyKubeconfigIsAnErrorNotAFallBackToInCluster() throws Exception {
    var empty = Files.writeString(directory.resolve("empty"), "{}\n");

    var result = runWith("--kubeconfig", empty.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo(
            "error: kubeconfig "
                + empty
                + " has no current-context and no contexts (is it empty?)\n");
  }

  @Test
  void noKubeconfigOutsideAPodIsAnErrorNotAGuess() {
    var result = runWith();

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("error: no kubeconfig: not running in a pod (KUBERNETES_SERVICE_HOST is unset)")
        .hasLineCount(1);
  }

  @Test
  void anUnreachableApiServerIsOneWarningPerRetryNamingTheUrlAndNoStackTrace() throws Exception {
    var closed = RefusingApiServer.closedPortUrl();
    var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), closed);

    var result = runWith("--kubeconfig", kubeconfig.toString(), "--informer-sync-timeout=4s");

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    var url = closed + "/api/v1/services";
    assertThat(result.err().lines().filter(line -> line.contains("url=" + url)))
        .as(result.err())
        .hasSizeGreaterThanOrEqualTo(2)
        .allSatisfy(
            line ->
                assertThat(line)
                    .contains("WARN")
                    .contains("Cannot list from the API server; retrying")
                    .contains("cause=connection refused"));
    assertThat(result.err()).doesNotContain("\tat ").contains("Informers did not sync");
  }

  @Test
  void sigtermWhileTheApiServerIsUnreachableExitsAtOnceInsteadOfWaitingForTheSyncTimeout()
      throws Exception {
    var closed = RefusingApiServer.closedPortUrl();
    var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), closed);

    try (var controller =
        jar()
            .start(
                "run",
                "--kubeconfig",
                kubeconfig.toString(),
                "--informer-sync-timeout=10m",
                "--metrics-bind-address=127.0.0.1:0",
                "--health-probe-bind-address=127.0.0.1:0")) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> controller.errSoFar().contains("Cannot list from the API server"));

      controller.process().destroy();

      assertThat(controller.process().waitFor(30, TimeUnit.SECONDS))
          .as("exited on SIGTERM long before the 10m sync timeout")
          .isTrue();
      assertThat(controller.process().exitValue()).isZero();
      assertThat(controller.errSoFar())
          .contains("Stopped before the informers synced")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void refusedCredentialsAreNamedAs401() {
    try (var api = new RefusingApiServer(401, "Unauthorized", "Unauthorized")) {
      var kubeconfig = ReachableApiServer.kubeconfig(directory.resolve("kubeconfig"), api.url());

      var result = runWith("--kubeconfig", kubeconfig.toString(), "--informer-sync-timeout=3s");

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err())
          .contains("cause=401 Unauthorized: the API server does not accept the credentials")
          .doesNotContain("\tat ");
    }
  }
}
