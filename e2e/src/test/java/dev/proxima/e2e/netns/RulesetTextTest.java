package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RulesetTextTest {
  @Test
  void anAddressIsMentionedOnlyAsAWholeAddress() {
    var nft = "\t\telements = { 10.96.0.21 . tcp . 80 : goto lb-2, 10.244.1.11 . 8080 }";

    assertThat(RulesetText.mentions(nft, "10.96.0.21")).isTrue();
    assertThat(RulesetText.mentions(nft, "10.96.0.2")).isFalse();
    assertThat(RulesetText.mentions(nft, "0.96.0.21")).isFalse();
    assertThat(RulesetText.mentions(nft, "10.244.1.11")).isTrue();
  }

  @Test
  void anIpv4AddressFollowedByAPortOrPrefixIsMentioned() {
    assertThat(RulesetText.mentions("-j DNAT --to-destination 10.244.1.11:8080", "10.244.1.11"))
        .isTrue();
    assertThat(RulesetText.mentions("-d 10.96.0.29/32 -p tcp", "10.96.0.29")).isTrue();
    assertThat(RulesetText.mentions("-d 10.96.0.29/32 -p tcp", "10.96.0.2")).isFalse();
  }

  @Test
  void anIpv6AddressIsNotMentionedByALongerOne() {
    var nft = "elements = { fd00:10:96::2a . tcp . 80 : goto lb-1 }";

    assertThat(RulesetText.mentions(nft, "fd00:10:96::2a")).isTrue();
    assertThat(RulesetText.mentions(nft, "fd00:10:96::2")).isFalse();
  }
}
