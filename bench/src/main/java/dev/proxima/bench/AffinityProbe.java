package dev.proxima.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Live traffic through one Service across proxy restarts: a pod namespace behind the node holds
 * both of Service 0's endpoint addresses and answers each connection with the address it was
 * reached at; a client namespace in front of the node opens connections to the Service's ClusterIP
 * one after another ({@link ConnectProbe}'s {@code watch}) until {@link #finish()}. With ClientIP
 * affinity every connection must reach the same endpoint, and none may fail while the proxy is down
 * or its first sync switches the table.
 */
final class AffinityProbe implements AutoCloseable {
  private static final Pattern SUMMARY =
      Pattern.compile("connections=(\\d+) failures=(\\d+) backends=(\\S*) firstFailure=(\\S+)");

  /** What the client saw. */
  record Result(long connections, long failures, List<String> backends, String firstFailure) {}

  private final Process server;
  private final Process client;

  AffinityProbe(Namespaces namespaces, String node, SyntheticCluster cluster) throws IOException {
    var jar = benchJar();
    var clientNs = namespaces.create("aff-client");
    var podNs = namespaces.create("aff-pod");
    Namespaces.exec(node, "sysctl", "-qw", "net.ipv4.ip_forward=1");
    var toClient = namespaces.connect(node, clientNs);
    Namespaces.exec(clientNs, "ip", "route", "add", "default", "via", toClient[0]);
    var toPod = namespaces.connect(node, podNs);
    Namespaces.exec(podNs, "ip", "route", "add", "default", "via", toPod[0]);
    for (int e = 0; e < 2; e++) {
      var ip = cluster.endpointIp(0, e);
      Namespaces.exec(podNs, "ip", "addr", "add", ip + "/32", "dev", toPod[3]);
      Namespaces.exec(node, "ip", "route", "add", ip + "/32", "via", toPod[1]);
    }
    server = start(podNs, jar, "serve-named", "8080");
    await(server, "listening");
    client = start(clientNs, jar, "watch", SyntheticCluster.clusterIp(0), "80");
    await(client, "watching");
  }

  /** Ends the client's connections and reads what it saw. */
  Result finish() throws IOException {
    client.getOutputStream().close();
    var reader =
        new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = reader.readLine()) != null; ) {
      var summary = SUMMARY.matcher(line);
      if (summary.find()) {
        return new Result(
            Long.parseLong(summary.group(1)),
            Long.parseLong(summary.group(2)),
            summary.group(3).isEmpty() ? List.of() : List.of(summary.group(3).split(",")),
            summary.group(4));
      }
    }
    throw new HarnessError("the affinity probe's client ended without a summary");
  }

  @Override
  public void close() {
    client.destroyForcibly();
    server.destroyForcibly();
  }

  private static Process start(String namespace, Path jar, String... args) throws IOException {
    var command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                jar.toString(),
                ConnectProbe.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(Sh.in(namespace, command.toArray(String[]::new)))
        .redirectErrorStream(true)
        .start();
  }

  private static void await(Process process, String word) throws IOException {
    var line =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
    if (!word.equals(line)) {
      throw new HarnessError("the affinity probe did not start: " + line);
    }
  }

  private static Path benchJar() {
    try {
      return Path.of(
          ConnectProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new HarnessError("cannot find the harness's jar", e);
    }
  }
}
