package dev.proxima.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged demo jar as its own process: only what it ships with is on its classpath. */
class DemoJarIT {
  @TempDir Path directory;

  @Test
  void thePackagedJarRunsTheControllerThenAProxyPerNodeAndExitsZero() throws Exception {
    var out = directory.resolve("out");

    var result =
        Commands.run(
            List.of(
                Commands.java().toString(), "-jar", Commands.DEMO_JAR.toString(), out.toString()),
            directory,
            Map.of(),
            directory.resolve("demo.log"),
            Duration.ofMinutes(3));

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).doesNotContain("NoClassDefFoundError");
    DemoOutput.assertHintsAndRouting(result.output());
    DemoOutput.assertRulesetsWritten(out);
  }
}
