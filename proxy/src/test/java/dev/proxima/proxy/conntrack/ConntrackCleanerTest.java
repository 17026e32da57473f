package dev.proxima.proxy.conntrack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.proxima.proxy.model.IpFamily;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConntrackCleanerTest {
  @TempDir Path dir;

  @Test
  void aConntrackThatNeverExitsSkipsTheCleanupAtTheTimeout() throws Exception {
    var fake = dir.resolve("conntrack");
    Files.writeString(fake, "echo $$ > " + dir.resolve("pid") + "\nexec sleep 1000\n");
    // Run by sh, not executed itself: a file this JVM just wrote can be "Text file busy".
    var cleaner = new ConntrackCleaner(List.of("/bin/sh", fake.toString()), Duration.ofSeconds(1));

    long started = System.nanoTime();
    int deleted =
        assertTimeoutPreemptively(
            Duration.ofSeconds(20), () -> cleaner.cleanup(IpFamily.IPV4, List.of(), List.of()));

    assertThat(deleted).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    long pid = Long.parseLong(Files.readString(dir.resolve("pid")).strip());
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
        .as("the tool is gone")
        .isEmpty();
  }

  @Test
  void aMissingConntrackSkipsTheCleanup() {
    var cleaner =
        new ConntrackCleaner(List.of(dir.resolve("absent").toString()), Duration.ofSeconds(1));

    assertThat(cleaner.cleanup(IpFamily.IPV4, List.of(), List.of())).isZero();
  }
}
