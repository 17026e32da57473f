package dev.proxima.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, {@code ./demo.sh}, run as a script from the repository root. The
 * build that runs this test has just packaged the jar, so the script is told to skip its own build
 * (DEMO_SKIP_BUILD=1): a nested Maven build of the same checkout would rebuild the module under
 * test. Everything after the build step is the script's real path.
 */
class DemoScriptIT {
  private static final Path OUTPUT = Commands.ROOT.resolve("proxima-demo-out");

  @TempDir Path directory;

  @BeforeEach
  void removeAnEarlierRunsOutput() throws Exception {
    for (var node : DemoOutput.NODES) {
      Files.deleteIfExists(OUTPUT.resolve(node + ".nft"));
    }
  }

  @Test
  void demoShExitsZeroPrintingHintsAndEachNodesRoutingAndWritesTheRulesets() throws Exception {
    var result =
        Commands.run(
            List.of("./demo.sh"),
            Commands.ROOT,
            Map.of("DEMO_SKIP_BUILD", "1"),
            directory.resolve("demo.log"),
            Duration.ofMinutes(3));

    assertThat(result.exitCode()).as(result.output()).isZero();
    DemoOutput.assertHintsAndRouting(result.output());
    DemoOutput.assertRulesetsWritten(OUTPUT);
    assertThat(result.output())
        .contains("Rendered ruleset written to proxima-demo-out/node-a1.nft");
  }

  @Test
  void withDemoSkipBuildAndNoJarItSaysWhatIsMissing() throws Exception {
    // A copy of the script in an empty checkout: same text, no jar beside it.
    var checkout = directory.resolve("checkout");
    Files.createDirectories(checkout);
    var script = checkout.resolve("demo.sh");
    Files.copy(Commands.ROOT.resolve("demo.sh"), script);
    script.toFile().setExecutable(true);

    var result =
        Commands.run(
            List.of("./demo.sh"),
            checkout,
            Map.of("DEMO_SKIP_BUILD", "1"),
            directory.resolve("demo.log"),
            Duration.ofMinutes(1));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output())
        .contains("DEMO_SKIP_BUILD=1 but e2e/target/proxima-demo.jar does not exist");
    try (Stream<Path> left = Files.list(checkout)) {
      assertThat(left).containsExactly(script);
    }
  }
}
