package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads rendered rulesets into a scratch network namespace (never the host's) and reads them back.
 * Needs {@code nft} and {@code ip} on PATH and root; without them the tests are reported as
 * skipped.
 */
@RootTier
class NftNamespaceLoadTest {
  @TempDir Path dir;

  private String namespace;

  // The assumptions are checked per test, not in @BeforeAll: Surefire reports a class-level abort
  // as zero tests run, where every test should show up as skipped.
  @BeforeEach
  void createNamespace() {
    assumeTrue(HostTools.onPath("nft").isPresent(), "nft is not on PATH");
    assumeTrue(HostTools.onPath("ip").isPresent(), "ip (iproute2) is not on PATH");
    namespace = "proxima-nft-" + UUID.randomUUID().toString().substring(0, 8);
    HostTools.run(dir, "ip", "netns", "add", namespace).assertSucceeded();
  }

  @AfterEach
  void deleteNamespace() {
    if (namespace != null) {
      HostTools.run(dir, "ip", "netns", "del", namespace).assertSucceeded();
    }
  }

  @Test
  void aSecondRenderReplacesTheFirstAtomicallyAndLeavesOtherTablesAlone() throws IOException {
    nft("add table ip bystander\nadd chain ip bystander keep\n");

    nft(RenderCases.clusterIpWithTwoEndpoints().script());
    String first = list("ip");
    assertThat(first)
        .contains(
            "172.30.0.44 . tcp . 80 comment \"ns4/svc4:p80\" : goto lb-2",
            "172.30.0.44 . tcp . 80 . 0 : 10.180.0.4 . 80",
            "172.30.0.44 . tcp . 80 . 1 : 10.180.0.5 . 80",
            "chain lb-2 {");

    nft(RenderCases.externalLocalLoadBalancerWithSourceRanges().script());
    String second = list("ip");
    assertThat(second)
        .contains(
            "203.0.113.10 . tcp . 443 comment \"ns/lb:https\" : goto external-local",
            "203.0.113.10 . tcp . 443 comment \"ns/lb:https\" : goto fw-",
            "ip saddr != @fw-",
            "flags interval",
            "elements = { 192.0.2.0/24, 198.51.100.0/24 }",
            "tcp . 30443 . 0 : 10.1.0.1 . 8443")
        .doesNotContain("172.30.0.44", "10.180.0.4");
    assertThat(exec("nft", "list", "tables").stdout())
        .contains("table ip bystander", "table ip proxima");
  }

  @Test
  void theCleanupScriptRemovesOnlyTheTableAndCanRunTwice() throws IOException {
    nft("add table ip bystander\n");
    nft(RenderCases.sessionAffinity().script());

    nft(new NftTransaction(new NftText(IpFamily.IPV4)).deleteTable().toString());
    nft(new NftTransaction(new NftText(IpFamily.IPV4)).deleteTable().toString());

    assertThat(exec("nft", "list", "tables").stdout())
        .contains("table ip bystander")
        .doesNotContain("proxima");
  }

  @Test
  void bothFamiliesLoadSideBySideWithStickySetsAndTimeouts() throws IOException {
    nft(RenderCases.sessionAffinity().script());
    nft(RenderCases.ipv6().script());

    assertThat(list("ip"))
        .contains("flags dynamic,timeout", "timeout 3h", "meta l4proto tcp dnat to 10.1.0.1:8080");
    assertThat(list("ip6"))
        .contains(
            "fd00:30::10 . tcp . 80 . 1 : fd00:10::2 . 8080",
            "2001:db8::6 . tcp . 80 comment \"ns/v6\" : goto fw-",
            "elements = { 2001:db8:100::/48 }",
            "timeout 30m",
            "meta l4proto udp dnat to [fd00:10::3]:5353");
  }

  @Test
  void aThousandServicesLoadAndAreReplacedByAnEmptyRuleset() throws IOException {
    nft(RenderCases.thousandServices().script());
    assertThat(list("ip")).contains("172.31.3.250 . tcp . 80");

    nft(RenderCases.render(RenderCases.v4(), java.util.List.of()).script());
    assertThat(list("ip")).doesNotContain("172.31.").contains("chain services {");
  }

  private void nft(String script) throws IOException {
    Path file = Files.createTempFile(dir, "ruleset", ".nft");
    Files.writeString(file, script);
    exec("nft", "-f", file.toString());
  }

  private String list(String family) {
    return exec("nft", "list", "table", family, NftNames.TABLE).stdout();
  }

  private HostTools.Result exec(String... command) {
    String[] inNamespace = new String[command.length + 4];
    inNamespace[0] = "ip";
    inNamespace[1] = "netns";
    inNamespace[2] = "exec";
    inNamespace[3] = namespace;
    System.arraycopy(command, 0, inNamespace, 4, command.length);
    return HostTools.run(dir, inNamespace).assertSucceeded();
  }
}
