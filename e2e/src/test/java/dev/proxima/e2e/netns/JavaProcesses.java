package dev.proxima.e2e.netns;

import dev.proxima.proxy.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts the packaged jars as processes, optionally inside a namespace, and talks HTTP to them. */
final class JavaProcesses {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  // Small, quick-starting JVMs: a dozen processes share two cores with the build.
  private static final List<String> JVM_OPTIONS =
      List.of(
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-Xss512k",
          "-Xmx128m",
          "-XX:-UsePerfData");

  private JavaProcesses() {}

  static Path jar(String property, String defaultPath) {
    return Path.of(System.getProperty(property, defaultPath)).toAbsolutePath();
  }

  /**
   * {@code java -jar jar args...}, in {@code namespace} unless it is null, logging to {@code log}.
   */
  static Process start(String namespace, Path jar, List<String> args, Path log) {
    var command = new ArrayList<String>();
    if (namespace != null) {
      command.addAll(List.of("ip", "netns", "exec", namespace));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(args);
    try {
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  /** {@code java -jar jar args...} in {@code namespace}, to its end: exit code and output. */
  static HostTools.Result run(String namespace, Path jar, List<String> args, Path workDir) {
    var command = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(args);
    return HostTools.run(workDir, null, command);
  }

  /** SIGKILL and wait; {@code ip netns exec} execs java, so the handle is the JVM itself. */
  static void kill(Process process) {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The HTTP status of {@code url}, or -1 when nothing answers. */
  static int status(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException unanswered) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
