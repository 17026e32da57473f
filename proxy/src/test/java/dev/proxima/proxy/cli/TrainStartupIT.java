package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.testing.JarCommand;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image build's training start (deploy/images/proxy/Dockerfile), from the packaged jar: it
 * syncs against its own made-up cluster, exits, and leaves an archive the next JVM maps.
 */
class TrainStartupIT {
  private static final Path JAR = Path.of("target", "proxima-proxy.jar");

  @TempDir Path directory;

  @Test
  void theTrainingStartSyncsExitsAndLeavesAClassArchiveTheNextStartMaps() {
    var jar = JarCommand.outsideAPod(JAR, directory);
    var archive = directory.resolve("proxima-proxy.jsa");

    var training =
        jar.run(
            List.of("-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds=off"),
            "train-startup",
            "--services=200");
    // -Xshare:on makes a JVM that cannot map the archive fail instead of starting without it.
    var next =
        jar.run(
            List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:on", "-Xlog:class+load=info"),
            "--version");

    assertThat(training.exitCode()).as(training.toString()).isZero();
    assertThat(training.err()).contains("training start synced; exiting");
    // The archive must cover a whole start, the first sync included, not only the servers.
    assertThat(training.out())
        .contains("\"message\":\"Synced proxy rules\"", "\"family\":\"IPv4\"")
        .contains("\"family\":\"IPv6\"");
    assertThat(archive).isNotEmptyFile();
    assertThat(next.exitCode()).as(next.toString()).isZero();
    assertThat(next.out())
        .contains("dev.proxima.proxy.cli.ProxyMain source: shared objects file (top)");
  }
}
