package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fake tools, shell scripts in a temporary directory, that misbehave the ways a real one can. */
class HostCommandTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /**
   * Where a run that ignores its timeout is cut off. The fake tools hang for 1000 s; the margin
   * over the timeout is for a loaded machine, not for the runner.
   */
  private static final Duration CUT_OFF = Duration.ofSeconds(20);

  /** Far larger than a pipe's buffer, so a tool that does not read it blocks the writer. */
  private static final String LARGE_INPUT =
      "add element ip proxima x { 10.0.0.1 }\n".repeat(500_000);

  @TempDir Path dir;

  /**
   * A fake tool, run as {@code sh SCRIPT}: executing a file this JVM just wrote can fail with "Text
   * file busy" when another thread forks while the file is open for writing.
   */
  private List<String> tool(String name, String body) throws IOException {
    var script = dir.resolve(name);
    Files.writeString(script, body + "\n");
    return List.of("/bin/sh", script.toString());
  }

  private long pid(String file) throws IOException {
    var path = dir.resolve(file);
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(path) && Files.size(path) > 0);
    return Long.parseLong(Files.readString(path).strip());
  }

  /** Gone, or a zombie waiting for init to reap it: either way it runs no more. */
  private static boolean running(long pid) {
    try {
      var stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException gone) {
      return false;
    }
  }

  private static HostCommand.Outcome runWithin(Duration limit, List<String> command, String stdin) {
    return assertTimeoutPreemptively(limit, () -> HostCommand.run(command, stdin, TIMEOUT));
  }

  @Test
  void aToolThatNeverReadsItsInputIsKilledAtTheTimeout() throws Exception {
    var fake = tool("never-reads", "echo $$ > " + dir.resolve("pid") + "\nexec sleep 1000");

    long started = System.nanoTime();
    var outcome = runWithin(CUT_OFF, fake, LARGE_INPUT);

    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isGreaterThanOrEqualTo(TIMEOUT)
        .isLessThan(TIMEOUT.plusSeconds(8));
    assertThat(outcome.ending()).isEqualTo(HostCommand.Ending.TIMED_OUT);
    assertThat(outcome.succeeded()).isFalse();
    assertThat(outcome.output()).contains("did not finish within PT1S and was killed");
    assertThat(running(pid("pid"))).as("the tool is gone").isFalse();
  }

  @Test
  void aToolThatNeverExitsIsKilledWithWhatItStarted() throws Exception {
    var fake =
        tool(
            "never-exits",
            "echo $$ > "
                + dir.resolve("pid")
                + "\nsleep 1000 &\necho $! > "
                + dir.resolve("child")
                + "\necho started\nwait");

    long started = System.nanoTime();
    var outcome = runWithin(CUT_OFF, fake, "");

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(TIMEOUT.plusSeconds(8));
    assertThat(outcome.ending()).isEqualTo(HostCommand.Ending.TIMED_OUT);
    assertThat(outcome.output()).contains("its output so far: started");
    assertThat(running(pid("pid"))).as("the tool is gone").isFalse();
    long child = pid("child");
    await().atMost(Duration.ofSeconds(10)).until(() -> !running(child));
  }

  @Test
  void aToolThatExitsWithoutReadingItsInputReportsItsExitCodeAtOnce() throws Exception {
    var fake = tool("refuses", "echo 'Error: syntax error' >&2\nexit 3");

    var outcome = runWithin(CUT_OFF, fake, LARGE_INPUT);

    assertThat(outcome.exitCode()).isEqualTo(3);
    assertThat(outcome.ending()).isNotEqualTo(HostCommand.Ending.TIMED_OUT);
    assertThat(outcome.output()).contains("Error: syntax error");
  }

  @Test
  void aLargeInputIsStreamedWhileALargeOutputIsRead() throws Exception {
    // A run that wrote all its input before reading any output would block on the full pipes
    // until the timeout killed it. The timeout here is long so that only that deadlock fails the
    // test: copying 19 MB both ways took over a second on a loaded 2-core machine.
    var outcome =
        assertTimeoutPreemptively(
            CUT_OFF,
            () -> HostCommand.run(tool("echoes", "exec cat"), LARGE_INPUT, Duration.ofSeconds(15)));

    assertThat(outcome.succeeded()).isTrue();
    assertThat(outcome.output()).isEqualTo(LARGE_INPUT);
  }

  @Test
  void aChildLeftHoldingTheOutputOpenDoesNotHoldTheRunPastTheTimeout() throws Exception {
    var fake = tool("leaves-child", "sleep 1000 &\necho $! > " + dir.resolve("child") + "\nexit 0");

    var outcome = runWithin(CUT_OFF, fake, "");

    // Two endings are right, and which one comes is a race inside the JDK: when the tool exits
    // before the reader thread has started its read, the JDK drains what the pipe holds and closes
    // its end, so the run ends at once with the tool's exit; when the reader is already waiting,
    // the child's open end keeps it waiting until the timeout kills the tool. (Reproduced: 8 of 60
    // runs ended at once on a loaded machine.) What must never happen is a run held past the
    // timeout, which runWithin checks.
    if (outcome.ending() != HostCommand.Ending.TIMED_OUT) {
      assertThat(outcome.succeeded()).as(outcome.output()).isTrue();
    }
    // Orphaned before the timeout, the child is init's now; the test cleans it up. On a loaded
    // machine the timeout can kill the tool before it wrote the child's pid, and with it the
    // child (it was still a descendant then): no file to wait for.
    var child = dir.resolve("child");
    if (Files.exists(child) && Files.size(child) > 0) {
      ProcessHandle.of(Long.parseLong(Files.readString(child).strip()))
          .ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void aMissingToolIsReportedAsNotStarted() {
    var outcome = HostCommand.run(List.of(dir.resolve("absent").toString()), "x", TIMEOUT);

    assertThat(outcome.started()).isFalse();
    assertThat(outcome.output()).startsWith("cannot run");
  }
}
