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
  void theProxyImageGivesJavaNoOptionsOfItsOwn() {
    assertThat(DeployedJvm.imageFlags(IMAGES.resolve("proxy").resolve("entrypoint"))).isEmpty();
  }

  @Test
  void theControllerImageGivesJavaNoOptionsOfItsOwn() {
    assertThat(DeployedJvm.imageFlags(IMAGES.resolve("controller").resolve("entrypoint")))
        .isEmpty();
  }

  @Test
  void anEntrypointThatDoesNotExecJavaDashJarGivesNoOptions() throws Exception {
    var entrypoint =
        Files.writeString(
            directory.resolve("entrypoint"),
            "#!/bin/sh\nexec /opt/java/bin/java -Xmx1g -cp x Main\n");

    assertThat(DeployedJvm.imageFlags(entrypoint)).isEmpty();
  }
}
