package dev.proxima.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A packaged jar run the way an operator runs it: {@code java -jar JAR ARGS...} as its own process,
 * stdout and stderr kept apart in files (a render of a big cluster is tens of megabytes).
 */
public final class JarCommand {
  private final Path jar;
  private final Path workDirectory;
  private final Map<String, String> environment;
  private final Duration timeout;

  /** What one run left behind. */
  public record Result(int exitCode, Path outFile, String err, Duration took) {
    /** The whole of stdout; for small outputs. */
    public String out() {
      try {
        return Files.readString(outFile);
      } catch (IOException unreadable) {
        throw new UncheckedIOException(unreadable);
      }
    }

    @Override
    public String toString() {
      return "exit " + exitCode + " after " + took.toMillis() + " ms; stderr:\n" + err;
    }
  }

  /**
   * @param environment added to (or, for a null value, removed from) this process's environment
   */
  public JarCommand(
      Path jar, Path workDirectory, Map<String, String> environment, Duration timeout) {
    this.jar = jar.toAbsolutePath();
    this.workDirectory = workDirectory;
    this.environment = environment;
    this.timeout = timeout;
  }

  /**
   * The jar as run on a workstation outside any cluster, with no kubeconfig of the user running the
   * build: {@code HOME} is the work directory, {@code KUBECONFIG} and the in-cluster variable are
   * unset.
   */
  public static JarCommand outsideAPod(Path jar, Path workDirectory) {
    var environment = new java.util.HashMap<String, String>();
    environment.put("HOME", workDirectory.toString());
    environment.put("KUBECONFIG", null);
    environment.put("PROXIMA_KUBECONFIG", null);
    environment.put("KUBERNETES_SERVICE_HOST", null);
    return new JarCommand(jar, workDirectory, environment, Duration.ofMinutes(1));
  }

  public JarCommand(Path jar, Path workDirectory) {
    this(jar, workDirectory, Map.of(), Duration.ofMinutes(2));
  }

  /** A process that runs until stopped, such as {@code run}. */
  public static final class Running implements AutoCloseable {
    private final Process process;
    private final Path err;

    Running(Process process, Path err) {
      this.process = process;
      this.err = err;
    }

    /** What it has written to stderr (its log) so far. */
    public String errSoFar() {
      try {
        return Files.readString(err);
      } catch (IOException unreadable) {
        throw new UncheckedIOException(unreadable);
      }
    }

    public Process process() {
      return process;
    }

    @Override
    public void close() throws InterruptedException {
      process.destroyForcibly().waitFor();
    }
  }

  /** Starts the jar and returns at once; the caller awaits what it needs and closes it. */
  public Running start(String... arguments) {
    try {
      var out = Files.createTempFile(workDirectory, "stdout-", ".txt");
      var err = Files.createTempFile(workDirectory, "stderr-", ".txt");
      return new Running(builder(List.of(), arguments, out, err).start(), err);
    } catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
  }

  private ProcessBuilder builder(List<String> jvmFlags, String[] arguments, Path out, Path err) {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(arguments));
    var builder =
        new ProcessBuilder(command)
            .directory(workDirectory.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    environment.forEach(
        (name, value) -> {
          if (value == null) {
            builder.environment().remove(name);
          } else {
            builder.environment().put(name, value);
          }
        });
    return builder;
  }

  public Result run(String... arguments) {
    return run(List.of(), arguments);
  }

  /** Runs with {@code input} as standard input. */
  public Result runWithInput(Path input, String... arguments) {
    return run(List.of(), input, arguments);
  }

  /** Runs with extra JVM flags (a heap limit, for instance) before {@code -jar}. */
  public Result run(List<String> jvmFlags, String... arguments) {
    return run(jvmFlags, null, arguments);
  }

  private Result run(List<String> jvmFlags, Path input, String... arguments) {
    try {
      var out = Files.createTempFile(workDirectory, "stdout-", ".txt");
      var err = Files.createTempFile(workDirectory, "stderr-", ".txt");
      long started = System.nanoTime();
      var builder = builder(jvmFlags, arguments, out, err);
      if (input != null) {
        builder.redirectInput(input.toFile());
      }
      var process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError(
            "java -jar "
                + jar.getFileName()
                + " "
                + List.of(arguments)
                + " did not exit within "
                + timeout);
      }
      var took = Duration.ofNanos(System.nanoTime() - started);
      return new Result(process.exitValue(), out, Files.readString(err), took);
    } catch (IOException failed) {
      throw new UncheckedIOException(failed);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new AssertionError(interrupted);
    }
  }
}
