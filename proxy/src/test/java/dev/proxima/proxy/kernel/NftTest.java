package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.testing.RootTier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NftTest {
  @Test
  void pointsAtTheScriptLineNftRejected() {
    var output = "/dev/stdin:2:1-3: Error: syntax error, unexpected junk\njunk\n^^^^\n";

    assertThat(Nft.offendingLine(output, "add table ip t\njunk here\n")).isEqualTo("junk here");
  }

  @Test
  void aMissingBinaryIsAFailedResultWithAHintNotAnException() {
    var result =
        new Nft(List.of("/nonexistent/nft"), Duration.ofSeconds(5)).apply("add table ip t\n");

    assertThat(result.succeeded()).isFalse();
    assertThat(result.summary()).contains("is nftables installed?");
  }

  @RootTier
  @Test
  void reportsTheOffendingLineFromTheRealNft() {
    assumeTrue(NftAvailability.canCheck(), NftAvailability.reason());

    var result =
        Nft.onThisHost()
            .check(
                "add table ip proxima_check\nadd chain ip proxima_check c { type nat hook output priority dstnat; }\n");

    assertThat(result.succeeded()).isFalse();
    assertThat(result.offendingLine()).contains("priority dstnat");
  }
}
