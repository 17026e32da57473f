package dev.proxima.proxy.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs one host tool with its input on stdin, bounded by a timeout. Every failure, including a tool
 * that is not installed, comes back as a value: a failed sync must leave the proxy running.
 */
public final class HostCommand {
  private HostCommand() {}

  /**
   * @param exitCode the tool's exit code, or -1 when it could not be started or did not finish
   * @param output stdout and stderr together, or why the tool did not run
   */
  public record Outcome(int exitCode, String output) {
    public boolean succeeded() {
      return exitCode == 0;
    }
  }

  public static Outcome run(List<String> command, String stdin, Duration timeout) {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      return new Outcome(
          -1, "cannot run " + String.join(" ", command) + ": " + notInstalled.getMessage());
    }
    var output = CompletableFuture.supplyAsync(() -> readAll(process));
    // Encoded as it is written, not copied whole first: a full ruleset is megabytes at scale.
    try (var in =
        new java.io.BufferedWriter(
            new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8),
            1 << 16)) {
      in.write(stdin);
    } catch (IOException closedEarly) {
      // Tools exit early on some errors; their output says why.
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return new Outcome(-1, command.get(0) + " did not finish within " + timeout);
      }
      return new Outcome(process.exitValue(), output.get(5, TimeUnit.SECONDS));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return new Outcome(-1, "interrupted while " + command.get(0) + " ran");
    } catch (Exception unreadable) {
      return new Outcome(-1, "could not read the output of " + command.get(0) + ": " + unreadable);
    }
  }

  /** The executable's path from PATH, /usr/sbin or /sbin (non-root PATHs often lack sbin). */
  public static java.util.Optional<String> find(String tool) {
    var path = System.getenv().getOrDefault("PATH", "");
    for (var dir : (path + ":/usr/sbin:/sbin").split(":")) {
      if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, tool))) {
        return java.util.Optional.of(java.nio.file.Path.of(dir, tool).toString());
      }
    }
    return java.util.Optional.empty();
  }

  private static String readAll(Process process) {
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
