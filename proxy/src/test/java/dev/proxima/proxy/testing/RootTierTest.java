package dev.proxima.proxy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RootTierTest {
  private static final Path TESTS = Path.of("src/test/java");

  /**
   * Helpers that create namespaces for root-tier tests, and tests whose root part is the tail of a
   * test that is useful without root, which checks root itself.
   */
  private static final Map<String, String> NOT_ANNOTATED =
      Map.of(
          "ScratchNode.java", "the namespaces of PacketFlowConformanceTest, of the root tier",
          "NftTool.java", "namespaces for @RootTier methods",
          "ProxyCommandsIT.java",
              "loads what the commands printed when root; the rest runs always");

  @Test
  void everyTestThatCreatesANetworkNamespaceIsOfTheRootTier() throws IOException {
    List<Path> creating;
    try (var files = Files.walk(TESTS)) {
      creating =
          files
              .filter(file -> file.toString().endsWith(".java"))
              .filter(file -> read(file).contains("\"netns\", \"add\""))
              .toList();
    }
    var unmarked =
        creating.stream()
            .filter(file -> !read(file).contains("@RootTier"))
            .map(file -> file.getFileName().toString())
            .filter(name -> !NOT_ANNOTATED.containsKey(name))
            .toList();

    assertThat(creating).as("the tests that create network namespaces").hasSizeGreaterThan(5);
    assertThat(unmarked).as("create network namespaces without @RootTier").isEmpty();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
