package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.testing.JarCommand;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image build's startup archive (deploy/images/proxy/Dockerfile), from the packaged jar: the
 * training start syncs against its own made-up cluster and exits, the classes it loaded go into a
 * static archive, and the next JVM maps it.
 */
class TrainStartupIT {
  private static final Path JAR = Path.of("target", "proxima-proxy.jar");

  @TempDir Path directory;

  @Test
  void theTrainingStartSyncsExitsAndLeavesAClassArchiveTheNextStartMaps() {
    var jar = JarCommand.outsideAPod(JAR, directory);
    var classList = directory.resolve("proxima-proxy.classlist");
    var archive = directory.resolve("proxima-proxy.jsa");

    var training =
        jar.run(List.of("-XX:DumpLoadedClassList=" + classList), "train-startup", "--services=200");
    var dump =
        jar.run(
            List.of(
                "-Xshare:dump",
                "-Xlog:cds=error",
                "-XX:SharedClassListFile=" + classList,
                "-XX:SharedArchiveFile=" + archive));
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
    assertThat(dump.exitCode()).as(dump.toString()).isZero();
    assertThat(archive).isNotEmptyFile();
    assertThat(next.exitCode()).as(next.toString()).isZero();
    // picocli's classes are compiled for Java 5, which JDK 17's dynamic archive leaves out.
    assertThat(next.out())
        .contains(
            "dev.proxima.proxy.cli.ProxyMain source: shared objects file",
            "picocli.CommandLine source: shared objects file",
            "java.lang.Object source: shared objects file");
  }
}
