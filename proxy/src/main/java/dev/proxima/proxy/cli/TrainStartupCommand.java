package dev.proxima.proxy.cli;

import dev.proxima.proxy.model.IpFamily;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One start of the proxy against a made-up cluster, for the image build to record what a start
 * loads: run with {@code -XX:DumpLoadedClassList=FILE}, the JVM lists every class the proxy needed
 * from its start to its first sync; {@code -Xshare:dump} then writes those classes into a
 * class-data archive, and the image's JVM maps that archive instead of loading and verifying the
 * classes again (about 0.5 s of a start; docs/performance.md). The proxy runs as {@code run
 * --dry-run} against {@link TrainingApiServer} on loopback; nothing on the host is touched.
 */
@Command(
    name = "train-startup",
    hidden = true,
    mixinStandardHelpOptions = true,
    description =
        "Start once against a made-up cluster on loopback and exit after the first sync (for"
            + " -XX:DumpLoadedClassList at image build time).")
public final class TrainStartupCommand implements Callable<Integer> {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @Option(
      names = "--services",
      defaultValue = "2000",
      description = "Services in the made-up cluster (default: ${DEFAULT-VALUE}).")
  int services;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var err = spec.commandLine().getErr();
    try (var api = TrainingApiServer.start(services)) {
      var kubeconfig = Files.createTempFile("proxima-training", ".kubeconfig");
      try {
        Files.writeString(kubeconfig, kubeconfig(api.url()));
        int[] ports = freePorts(3);
        int healthPort = ports[0];
        int metricsPort = ports[1];
        int explainPort = ports[2];
        var proxy =
            new Thread(
                () ->
                    ProxyMain.commandLine()
                        .setOut(new PrintWriter(Writer.nullWriter()))
                        .execute(
                            "run",
                            "--dry-run",
                            "--node-name=" + TrainingApiServer.NODE,
                            "--kubeconfig=" + kubeconfig,
                            "--healthz-bind-address=127.0.0.1:" + healthPort,
                            "--metrics-bind-address=127.0.0.1:" + metricsPort,
                            "--explain-bind-address=127.0.0.1:" + explainPort,
                            "--log-format=json"),
                "training-proxy");
        proxy.setDaemon(true);
        proxy.start();
        if (!awaitFirstSync(healthPort)) {
          err.println("error: the training proxy did not sync within " + TIMEOUT);
          return 1;
        }
        // What the kubelet and Prometheus ask of a running proxy, once each.
        get(metricsPort, "/metrics");
        get(healthPort, "/livez");
        err.println("training start synced; exiting");
        return 0;
      } finally {
        Files.deleteIfExists(kubeconfig);
      }
    }
  }

  private static String kubeconfig(String server) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: training
          cluster:
            server: %s
        users:
        - name: training
          user: {}
        contexts:
        - name: training
          context:
            cluster: training
            user: training
        current-context: training
        """
        .formatted(server);
  }

  /**
   * Waits until both families have programmed their first ruleset, which the /healthz body shows as
   * a time in each family's {@code lastUpdated}. The status code alone does not: /healthz answers
   * 200 from the start (nothing queued is healthy), so waiting for it recorded an archive of a
   * start that had not yet listed, planned or rendered anything.
   */
  private static boolean awaitFirstSync(int port) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (bothFamiliesSynced(body(port, "/healthz"))) {
        return true;
      }
      // Polling a process-local server; nothing to be notified by.
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    return false;
  }

  static boolean bothFamiliesSynced(String healthz) {
    return healthz != null
        && Arrays.stream(IpFamily.values())
            .allMatch(
                family ->
                    Pattern.compile("\"" + family.apiName() + "\": \\{\"lastUpdated\": \"[^\"]")
                        .matcher(healthz)
                        .find());
  }

  private static int get(int port, String path) {
    var response = request(port, path);
    return response == null ? -1 : response.code();
  }

  private static String body(int port, String path) {
    var response = request(port, path);
    return response == null ? null : response.body();
  }

  private record Response(int code, String body) {}

  private static Response request(int port, String path) {
    try {
      var connection =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
      connection.setConnectTimeout(1000);
      connection.setReadTimeout(5000);
      String body = "";
      try (var stream =
          connection.getResponseCode() >= 400
              ? connection.getErrorStream()
              : connection.getInputStream()) {
        if (stream != null) {
          body = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
      return new Response(connection.getResponseCode(), body);
    } catch (IOException notYet) {
      return null;
    }
  }

  /**
   * Ports free on loopback, all different: each is held until every one is chosen, since a port
   * asked for and let go at once can be handed out again by the next ask.
   */
  static int[] freePorts(int count) throws IOException {
    var sockets = new java.util.ArrayList<ServerSocket>();
    try {
      for (int i = 0; i < count; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } finally {
      for (var socket : sockets) {
        socket.close();
      }
    }
  }
}
