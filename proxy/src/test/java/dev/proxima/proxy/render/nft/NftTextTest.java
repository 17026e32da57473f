package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import org.junit.jupiter.api.Test;

class NftTextTest {
  private final NftText v6 = new NftText(IpFamily.IPV6);

  @Test
  void keysDropValuesAndComments() {
    assertThat(NftText.key("10.96.0.10 . tcp . 80 comment \"shop/web\" : goto lb-2", true))
        .isEqualTo("10.96.0.10 . tcp . 80");
    assertThat(NftText.key("fd00::1 . tcp . 80 : fd00::5 . 8080", true))
        .isEqualTo("fd00::1 . tcp . 80");
    assertThat(NftText.key("10.180.0.4 . 10.180.0.4", false)).isEqualTo("10.180.0.4 . 10.180.0.4");
  }

  @Test
  void aKeyLosesEveryCommentButKeepsAnUnclosedQuote() {
    assertThat(NftText.key("a comment \"x\" . b comment \"y\"", false)).isEqualTo("a . b");
    assertThat(NftText.key("a comment \"x", false)).isEqualTo("a comment \"x");
  }

  @Test
  void writesElementsOnePerLineAndNothingForNone() {
    var out = new StringBuilder();
    v6.addElements(out, "cluster-ips", List.of("fd00::1", "fd00::2"));
    v6.deleteElements(out, "hairpins", List.of());

    assertThat(out)
        .hasToString("add element ip6 proxima cluster-ips {\n\tfd00::1,\n\tfd00::2\n}\n");
  }

  @Test
  void namesTheFamilysTableInEveryStatement() {
    assertThat(v6.addChain("services", "")).isEqualTo("add chain ip6 proxima services");
    assertThat(v6.addRule("services", "drop")).isEqualTo("add rule ip6 proxima services drop");
    assertThat(v6.addSet("hairpins", "set %NAME% { type ipv6_addr ; }"))
        .isEqualTo("add set ip6 proxima hairpins { type ipv6_addr ; }");
    assertThat(v6.cleanup()).isEqualTo("add table ip6 proxima\ndelete table ip6 proxima\n");
  }
}
