package dev.proxima.e2e.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs what a user runs (a script, {@code java -jar}) as its own process, output to a file. */
final class Commands {
  /** The e2e module's tests run in e2e/; the scripts live at the repository root. */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  static final Path DEMO_JAR =
      Path.of(System.getProperty("proxima.demo.jar", "target/proxima-demo.jar")).toAbsolutePath();

  private Commands() {}

  /** What a finished command printed (stdout and stderr together) and how it exited. */
  record Result(int exitCode, String output) {}

  static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** Starts {@code command} in {@code directory} with {@code environment} added, logging to log. */
  static Process start(
      List<String> command, Path directory, Map<String, String> environment, Path log) {
    var builder =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    builder.environment().putAll(environment);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  /** Runs {@code command} to its end, killing it after {@code limit}. */
  static Result run(
      List<String> command,
      Path directory,
      Map<String, String> environment,
      Path log,
      Duration limit)
      throws IOException, InterruptedException {
    var process = start(command, directory, environment, log);
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(
            command + " did not exit within " + limit + ":\n" + Files.readString(log));
      }
      return new Result(process.exitValue(), Files.readString(log));
    } finally {
      stop(process);
    }
  }

  /** SIGTERM (what Ctrl-C's SIGINT also does: the JVM's shutdown hooks run), then SIGKILL. */
  static void stop(Process process) throws InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
