package dev.proxima.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a host tool and times it; a failure is a harness error with the tool's own output. */
final class Sh {
  private Sh() {}

  /** What one run printed and how long it took, from fork to exit. */
  record Run(int exitCode, String output, long nanos) {
    double millis() {
      return nanos / 1e6;
    }

    Run orThrow(List<String> command) {
      if (exitCode != 0) {
        throw new HarnessError(
            String.join(" ", command) + " exited " + exitCode + ": " + output.strip());
      }
      return this;
    }
  }

  static Run run(List<String> command, String stdin) {
    return run(command, java.util.Map.of(), stdin);
  }

  /** The command with {@code environment} added to the harness's own. */
  static Run run(List<String> command, java.util.Map<String, String> environment, String stdin) {
    Process process;
    long started = System.nanoTime();
    try {
      var builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().putAll(environment);
      process = builder.start();
    } catch (IOException e) {
      throw new HarnessError("cannot run " + String.join(" ", command) + ": " + e.getMessage());
    }
    var output =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                return "";
              }
            });
    try (var in = process.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    } catch (IOException closedEarly) {
      // the tool failed before reading everything; its output says why
    }
    try {
      if (!process.waitFor(10, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new HarnessError(String.join(" ", command) + " did not finish");
      }
      long elapsed = System.nanoTime() - started;
      return new Run(process.exitValue(), output.get(), elapsed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HarnessError("interrupted");
    } catch (java.util.concurrent.ExecutionException e) {
      throw new HarnessError(e.getMessage());
    }
  }

  static Run must(String stdin, String... command) {
    return run(List.of(command), stdin).orThrow(List.of(command));
  }

  /** The command, run inside a network namespace. */
  static List<String> in(String namespace, String... command) {
    var full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    full.addAll(List.of(command));
    return full;
  }
}
