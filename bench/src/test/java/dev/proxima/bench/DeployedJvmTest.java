package dev.proxima.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image's own JVM options, which the harness adds to the manifest's. */
class DeployedJvmTest {
  private static final Path IMAGES = Path.of("..", "deploy", "images");

  @TempDir Path directory;

  @Test
  void theProxyImagesEntrypointMapsItsStartupArchive() {
    assertThat(DeployedJvm.imageFlags(IMAGES.resolve("proxy").resolve("Dockerfile")))
        .containsExactly("-XX:SharedArchiveFile=/opt/proxima/proxima-proxy.jsa");
  }

  @Test
  void theControllerImageGivesJavaNoOptionsOfItsOwn() {
    assertThat(DeployedJvm.imageFlags(IMAGES.resolve("controller").resolve("Dockerfile")))
        .isEmpty();
  }

  @Test
  void anEntrypointThatIsNotJavaDashJarGivesNoOptions() throws Exception {
    var dockerfile =
        Files.writeString(
            directory.resolve("Dockerfile"),
            "FROM scratch\nENTRYPOINT [\"/bin/sh\", \"-c\", \"exec java -Xmx1g -jar x.jar\"]\n");

    assertThat(DeployedJvm.imageFlags(dockerfile)).isEmpty();
  }
}
