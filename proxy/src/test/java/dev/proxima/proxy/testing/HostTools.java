package dev.proxima.proxy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs host tools ({@code nft}, {@code iptables-restore}, {@code ip}, ...) for the tests that need
 * the real kernel, with time limits, and tells whether they can run here at all.
 */
public final class HostTools {
  private HostTools() {}

  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** What a finished command printed. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr) {
    public Result assertSucceeded() {
      assertThat(exitCode)
          .as("%s exited %d%nstderr:%n%s%nstdout:%n%s", command, exitCode, stderr, stdout)
          .isZero();
      return this;
    }
  }

  /** The executable {@code name} on PATH, if there is one. */
  public static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The real uid of this process from /proc/self/status, or -1 if it cannot be read. */
  public static long uid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return Long.parseLong(line.substring(4).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  public static boolean isRoot() {
    return uid() == 0;
  }

  /**
   * Runs a command with no input, waits at most {@link #TIMEOUT}, and fails the test if it hangs.
   */
  public static Result run(Path workDir, String... command) {
    return run(workDir, null, List.of(command));
  }

  /** Runs a command with {@code stdin} as its input (null for none), waiting at most TIMEOUT. */
  public static Result run(Path workDir, String stdin, List<String> command) {
    try {
      Path in =
          Files.writeString(
              Files.createTempFile(workDir, "in", ".txt"), stdin == null ? "" : stdin);
      Path out = Files.createTempFile(workDir, "out", ".txt");
      Path err = Files.createTempFile(workDir, "err", ".txt");
      Process process =
          new ProcessBuilder(new ArrayList<>(command))
              .redirectInput(in.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        fail("%s did not finish within %s", command, TIMEOUT);
      }
      return new Result(
          List.copyOf(command),
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("could not run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + command, e);
    }
  }

  /** {@code ip netns exec NS command...}. */
  public static Result inNamespace(
      Path workDir, String namespace, String stdin, List<String> command) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    full.addAll(command);
    return run(workDir, stdin, full);
  }
}
