package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IptablesBackendTest {
  private static final String KUBELET_HINT = "*mangle\n:KUBE-IPTABLES-HINT - [0:0]\nCOMMIT\n";
  private static final String KUBELET_CANARY = "*nat\n:KUBE-KUBELET-CANARY - [0:0]\nCOMMIT\n";
  private static final String TWO_RULES =
      "*filter\n-A INPUT -j ACCEPT\n-A FORWARD -j DROP\nCOMMIT\n";
  private static final String ONE_RULE = "*filter\n-A INPUT -j ACCEPT\nCOMMIT\n";

  private static String fixture(String name) {
    return switch (name) {
      case "absent" -> null;
      case "empty" -> "";
      case "hint" -> KUBELET_HINT;
      case "canary" -> KUBELET_CANARY;
      case "two" -> TWO_RULES;
      case "one" -> ONE_RULE;
      default -> throw new IllegalArgumentException(name);
    };
  }

  @ParameterizedTest(name = "nft={0} legacy={1} -> {2}")
  @CsvSource({
    "hint, two, NFT, kubelet's chains are in the nft backend",
    "two, hint, LEGACY, kubelet's chains are in the legacy backend",
    "one, canary, LEGACY, kubelet's chains are in the legacy backend",
    "hint, hint, NFT, kubelet's chains are in the nft backend",
    "one, two, LEGACY, the legacy backend holds more rules (2 > 1)",
    "two, one, NFT, the nft backend holds at least as many rules (2 >= 1)",
    "empty, empty, NFT, the nft backend holds at least as many rules (0 >= 0)",
    "absent, two, LEGACY, only the legacy backend is installed",
    "empty, absent, NFT, only the nft backend is installed",
    "absent, absent, NFT, neither backend's save tool ran; assuming nft",
  })
  void choosesTheBackendTheNodeUsesAsKubeProxyDoes(
      String nft, String legacy, IptablesBackend expected, String reason) {
    var decision = IptablesBackend.decide(fixture(nft), fixture(legacy));

    assertThat(decision.backend()).isEqualTo(expected);
    assertThat(decision.reason()).isEqualTo(reason);
  }

  @ParameterizedTest(name = "{0} {1} {2} -> {3}")
  @CsvSource({
    "NFT, IPV4, -restore, iptables-nft-restore",
    "NFT, IPV6, -save, ip6tables-nft-save",
    "LEGACY, IPV4, '', iptables-legacy",
    "LEGACY, IPV6, -restore, ip6tables-legacy-restore",
  })
  void namesEachFamilysToolOfTheBackend(
      IptablesBackend backend, IpFamily family, String suffix, String tool) {
    assertThat(backend.tool(family, suffix)).isEqualTo(tool);
  }
}
