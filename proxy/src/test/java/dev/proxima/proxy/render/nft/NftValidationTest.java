package dev.proxima.proxy.render.nft;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kernel accepts every rendered ruleset: {@code nft -c -f} parses the script and has the kernel
 * check the whole transaction without committing it. Needs {@code nft} on PATH and root; without
 * them the tests are reported as skipped, not passed.
 */
@RootTier
class NftValidationTest {
  @TempDir Path dir;

  // Checked per test, not in @BeforeAll: Surefire reports a class-level abort as zero tests run,
  // where every test should show up as skipped.
  @BeforeEach
  void requireNftAndRoot() {
    assumeTrue(HostTools.onPath("nft").isPresent(), "nft is not on PATH");
  }

  static Stream<RenderCases.Case> cases() {
    return RenderCases.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theKernelAcceptsTheRenderedRuleset(RenderCases.Case renderCase) throws IOException {
    check(renderCase.script());
  }

  @ParameterizedTest
  @EnumSource(IpFamily.class)
  void theKernelAcceptsTheCleanupScript(IpFamily family) throws IOException {
    check(new NftTransaction(new NftText(family)).deleteTable().toString());
  }

  @ParameterizedTest
  @EnumSource(IpFamily.class)
  void theKernelAcceptsEveryCaseRenderedTogether(IpFamily family) throws IOException {
    FamilySettings config = family == IpFamily.IPV4 ? RenderCases.v4() : RenderCases.v6();
    List<ServicePortRules> all =
        RenderCases.all().stream()
            .filter(c -> c.config().family() == family)
            .flatMap(c -> c.services().stream())
            .toList();
    check(RenderCases.render(config, all).script());
  }

  private void check(String script) throws IOException {
    Path file = Files.writeString(dir.resolve("ruleset.nft"), script);
    HostTools.run(dir, "nft", "-c", "-f", file.toString()).assertSucceeded();
  }
}
