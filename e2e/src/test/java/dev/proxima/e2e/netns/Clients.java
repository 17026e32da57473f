package dev.proxima.e2e.netns;

import dev.proxima.proxy.testing.HostTools;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** Sends real connections and datagrams from a namespace with the scripts in resources/netns. */
final class Clients {
  private final Path workDir;
  private final Path probe;
  private final Path session;
  private final Path http;
  private final Path burst;

  Clients(Path workDir) {
    this.workDir = workDir;
    this.probe = install("probe.sh");
    this.session = install("session.sh");
    this.http = install("http.sh");
    this.burst = install("burst.sh");
  }

  private Path install(String script) {
    try (var in = Clients.class.getResourceAsStream("/netns/" + script)) {
      var target = workDir.resolve(script);
      Files.write(target, Objects.requireNonNull(in, script).readAllBytes());
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code count} fresh connections (tcp) or sockets (udp) from {@code namespace}. */
  Answers probe(
      String client, String namespace, String protocol, String host, int port, int count) {
    var result =
        HostTools.inNamespace(
            workDir,
            namespace,
            null,
            List.of(
                "bash",
                probe.toString(),
                protocol,
                host,
                String.valueOf(port),
                String.valueOf(count)));
    return Answers.parse(client, target(protocol, host, port), result.stdout());
  }

  /**
   * {@code count} fresh TCP connections from {@code namespace}, many times faster than {@link
   * #probe} but without its limit on each connect: for connections that are all expected to be
   * answered.
   */
  Answers burst(String client, String namespace, String host, int port, int count) {
    var result =
        HostTools.inNamespace(
            workDir,
            namespace,
            null,
            List.of("bash", burst.toString(), host, String.valueOf(port), String.valueOf(count)));
    return Answers.parse(client, target("tcp", host, port), result.stdout());
  }

  /**
   * Connections back to back from {@code namespace} until the process is destroyed, each line
   * "start-time answer" in {@code output}.
   */
  Process loop(String namespace, String protocol, String host, int port, Path output) {
    try {
      return new ProcessBuilder(
              "ip",
              "netns",
              "exec",
              namespace,
              "bash",
              probe.toString(),
              protocol,
              host,
              String.valueOf(port),
              "1000000",
              "stamped")
          .redirectErrorStream(true)
          .redirectOutput(output.toFile())
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The status code of an HTTP GET from {@code namespace}, 0 when nothing answers. */
  int httpStatus(String namespace, String host, int port, String path) {
    return Integer.parseInt(http(namespace, host, port, path, "status").trim());
  }

  /** The body of an HTTP GET from {@code namespace}, empty when nothing answers. */
  String httpBody(String namespace, String host, int port, String path) {
    return http(namespace, host, port, path, "body");
  }

  private String http(String namespace, String host, int port, String path, String what) {
    return HostTools.inNamespace(
            workDir,
            namespace,
            null,
            List.of("bash", http.toString(), host, String.valueOf(port), path, what))
        .stdout();
  }

  Session open(String client, String namespace, String protocol, String host, int port) {
    try {
      var process =
          new ProcessBuilder(
                  "ip",
                  "netns",
                  "exec",
                  namespace,
                  "bash",
                  session.toString(),
                  protocol,
                  host,
                  String.valueOf(port))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      return new Session(client + " -> " + target(protocol, host, port), process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String target(String protocol, String host, int port) {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + protocol;
  }

  /** One long-lived connection (or UDP socket); each {@link #ask} is one request and answer. */
  static final class Session implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Writer in;
    private final BufferedReader out;

    private Session(String name, Process process) {
      this.name = name;
      this.process = process;
      this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      this.out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The script answers every line within its own time limits, so this never blocks long. */
    Answers.Answer ask() {
      try {
        in.write("next\n");
        in.flush();
        var line = out.readLine();
        return Answers.Answer.parse(line == null ? "ERROR session ended" : line);
      } catch (IOException e) {
        return Answers.Answer.parse("ERROR " + e.getMessage());
      }
    }

    @Override
    public String toString() {
      return name;
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }
}
