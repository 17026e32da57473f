package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.testing.FakeNft;
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
        new Nft(List.of("/nonexistent/nft"), Duration.ofSeconds(5))
            .apply(FakeNft.script("add table ip t\n"));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.summary()).contains("is nftables installed?");
  }

  @Test
  void aSetsListingIsReadAsItsElementsKeysWithoutCountersCommentsOrValues() {
    var listing =
        """
        table ip proxima {
        	set service-node {
        		type ipv4_addr . inet_proto . inet_service
        		counter
        		comment "Service address . proto . port of counted ports, node"
        		elements = { 10.96.0.10 . tcp . 53 counter packets 12 bytes 720,
        			     10.96.0.11 . udp . 53 comment "ns/dns:udp" counter packets 0 bytes 0,
        			     10.96.0.12 . tcp . 80 : goto lb-1,
        			     10.96.0.13 . tcp . 80 "odd" }
        	}
        }
        """;

    assertThat(Nft.elements(listing))
        .extracting(element -> element.key())
        .containsExactly("10.96.0.10 . tcp . 53", "10.96.0.11 . udp . 53", "10.96.0.12 . tcp . 80");
    assertThat(Nft.elements("table ip proxima {\n\tset service-node {\n\t}\n}\n")).isEmpty();
  }

  @RootTier
  @Test
  void reportsTheOffendingLineFromTheRealNft() {
    assumeTrue(NftAvailability.canCheck(), NftAvailability.reason());

    var result =
        Nft.onThisHost()
            .check(
                FakeNft.script(
                    "add table ip proxima_check\nadd chain ip proxima_check c { type nat hook output priority dstnat; }\n"));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.offendingLine()).contains("priority dstnat");
  }
}
