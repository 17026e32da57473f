package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs {@code nft} and {@code ip} for the tests that need the real tools, with time limits. */
final class NftTool {
  private NftTool() {}

  static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** What a finished command printed. */
  record Result(List<String> command, int exitCode, String stdout, String stderr) {
    Result assertSucceeded() {
      assertThat(exitCode)
          .as("%s exited %d%nstderr:%n%s%nstdout:%n%s", command, exitCode, stderr, stdout)
          .isZero();
      return this;
    }
  }

  /** The executable {@code name} on PATH, if there is one. */
  static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
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
  static long uid() {
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

  static boolean isRoot() {
    return uid() == 0;
  }

  /** Runs a command, waits at most {@link #TIMEOUT}, and fails the test if it hangs. */
  static Result run(Path workDir, String... command) {
    List<String> cmd = List.of(command);
    try {
      Path out = Files.createTempFile(workDir, "out", ".txt");
      Path err = Files.createTempFile(workDir, "err", ".txt");
      Process process =
          new ProcessBuilder(new ArrayList<>(cmd))
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        fail("%s did not finish within %s", cmd, TIMEOUT);
      }
      return new Result(
          cmd,
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("could not run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + cmd, e);
    }
  }

  /**
   * The table as the kernel lists it: per chain, set or map, its rules or its elements, in sorted
   * order (the kernel does not keep element order).
   */
  static java.util.Map<String, List<String>> objects(Path directory, String namespace) {
    var listed =
        NftTool.run(
                directory, "ip", "netns", "exec", namespace, "nft", "list", "table", "ip",
                "proxima")
            .assertSucceeded()
            .stdout();
    var objects = new java.util.TreeMap<String, List<String>>();
    var elements = java.util.regex.Pattern.compile("elements = \\{([^}]*)\\}");
    String current = null;
    var content = new java.util.ArrayList<String>();
    var text =
        elements.matcher(listed).replaceAll(m -> "elements = " + m.group(1).replace("\n", " "));
    for (var raw : text.lines().toList()) {
      var line = raw.strip();
      if (line.matches("(chain|set|map) \\S+ \\{")) {
        current = line.substring(0, line.length() - 2);
        content = new java.util.ArrayList<>();
        objects.put(current, content);
      } else if (current != null && line.startsWith("elements = ")) {
        for (var element : line.substring("elements = ".length()).split(",")) {
          content.add(element.strip());
        }
      } else if (current != null && !line.equals("}") && !line.isEmpty()) {
        content.add(line);
      }
    }
    objects.values().forEach(java.util.Collections::sort);
    return objects;
  }
}
