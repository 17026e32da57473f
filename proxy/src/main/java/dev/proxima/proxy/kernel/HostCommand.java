package dev.proxima.proxy.kernel;

import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one host tool with its input on stdin, under one timeout for writing, reading and the exit,
 * after which the tool and what it started are killed: a hung tool must never hold the sync thread.
 * Every failure comes back as a value, so a failed sync leaves the proxy running.
 *
 * <p>Not zt-exec or commons-exec: those stop only the tool, not what it started, and take stdin as
 * an InputStream, one more copy of a ruleset of tens of MB. Stdin and output use two pooled daemon
 * threads, so the caller only ever waits on the clock.
 */
public final class HostCommand {
  private static final AtomicInteger THREADS = new AtomicInteger();

  /** Idle threads end after a minute; a sync runs its tools one at a time, so this stays at two. */
  private static final ExecutorService STREAMS =
      Executors.newCachedThreadPool(
          runnable -> {
            var thread = new Thread(runnable, "host-command-io-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  /** How long a killed tool gets to disappear before the outcome is returned anyway. */
  private static final Duration KILL_GRACE = Duration.ofSeconds(2);

  private HostCommand() {}

  public enum Ending {
    EXITED,
    /** Usually because it is not installed. */
    NOT_STARTED,
    TIMED_OUT,
    INTERRUPTED
  }

  /** {@code exitCode} is -1 and {@code output} says why when the tool did not run or finish. */
  public record Outcome(int exitCode, String output, Ending ending) {
    public boolean succeeded() {
      return ending == Ending.EXITED && exitCode == 0;
    }

    public boolean started() {
      return ending != Ending.NOT_STARTED;
    }
  }

  public static Outcome run(List<String> command, String stdin, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    var name = command.get(0);
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      return new Outcome(
          -1,
          "cannot run " + String.join(" ", command) + ": " + notInstalled.getMessage(),
          Ending.NOT_STARTED);
    }
    var output = new ByteArrayOutputStream();
    Future<?> reading = STREAMS.submit(() -> copyOutput(process, output));
    writeInput(process, stdin);
    try {
      if (!process.waitFor(remaining(deadline), TimeUnit.NANOSECONDS)) {
        return timedOut(process, name, timeout, output);
      }
      // A child the tool left running can hold the pipe open past its exit: the timeout covers it.
      reading.get(remaining(deadline), TimeUnit.NANOSECONDS);
      return new Outcome(process.exitValue(), text(output), Ending.EXITED);
    } catch (TimeoutException outputStillOpen) {
      return timedOut(process, name, timeout, output);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      kill(process);
      return new Outcome(-1, "interrupted while " + name + " ran", Ending.INTERRUPTED);
    } catch (ExecutionException unreadable) {
      return new Outcome(
          -1, "could not read the output of " + name + ": " + unreadable.getCause(), Ending.EXITED);
    }
  }

  /** The executable's path from PATH, /usr/sbin or /sbin (non-root PATHs often lack sbin). */
  public static Optional<String> find(String tool) {
    var path = System.getenv().getOrDefault("PATH", "");
    for (var dir : (path + ":/usr/sbin:/sbin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return Optional.of(Path.of(dir, tool).toString());
      }
    }
    return Optional.empty();
  }

  private static void writeInput(Process process, String stdin) {
    if (stdin.isEmpty()) {
      closeQuietly(process);
      return;
    }
    STREAMS.submit(
        () -> {
          // Encoded as it is written, not copied whole first: a full ruleset is megabytes at scale.
          try (var in =
              new BufferedWriter(
                  new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8),
                  1 << 16)) {
            in.write(stdin);
          } catch (IOException closedEarly) {
            // The tool exited (or was killed) without reading everything; its output says why.
          }
        });
  }

  // ByteArrayOutputStream's methods are synchronized, so a timeout may read what came so far.
  private static Void copyOutput(Process process, ByteArrayOutputStream output) throws IOException {
    try (var in = process.getInputStream()) {
      in.transferTo(output);
    }
    return null;
  }

  private static Outcome timedOut(
      Process process, String name, Duration timeout, ByteArrayOutputStream output) {
    kill(process);
    var partial = text(output).strip();
    return new Outcome(
        -1,
        name
            + " did not finish within "
            + timeout
            + " and was killed"
            + (partial.isEmpty() ? "" : "; its output so far: " + partial),
        Ending.TIMED_OUT);
  }

  /** Its descendants are listed first: once it is gone they belong to init and cannot be found. */
  private static void kill(Process process) {
    var descendants = process.descendants().toList();
    process.destroyForcibly();
    descendants.forEach(ProcessHandle::destroyForcibly);
    try {
      process.onExit().get(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException stillThere) {
      // SIGKILL cannot be refused; a process stuck in the kernel goes when the kernel lets it.
    }
    // stdin is not closed here, which would wait for a blocked write; the writer closes it.
  }

  private static void closeQuietly(Process process) {
    try {
      process.getOutputStream().close();
    } catch (IOException alreadyClosed) {
      // Nothing to release.
    }
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  private static String text(ByteArrayOutputStream output) {
    return output.toString(StandardCharsets.UTF_8);
  }
}
