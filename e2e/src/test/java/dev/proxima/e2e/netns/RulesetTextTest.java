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

  private static final String TABLE =
      """
      table ip proxima {
      \tcomment "rules for proxima"
      \tset cluster-ips {
      \t\ttype ipv4_addr
      \t\telements = { 10.96.0.16 }
      \t}

      \tchain lb-1 {
      \t}

      \tchain nat-output {
      \t\ttype nat hook output priority -100; policy accept;
      \t\tjump services
      \t}

      \tchain lb-2 {
      \t\tdnat ip to ip daddr . meta l4proto . th dport map @cluster-endpoints
      \t}
      }
      """;

  @Test
  void aTableListedInAnotherOrderWithoutItsEmptiedChainsProgramsTheSame() {
    var reordered =
        """
        table ip proxima {
        \tcomment "rules for proxima"
        \tchain lb-2 {
        \t\tdnat ip to ip daddr . meta l4proto . th dport map @cluster-endpoints
        \t}

        \tset cluster-ips {
        \t\ttype ipv4_addr
        \t\telements = { 10.96.0.16 }
        \t}

        \tchain nat-output {
        \t\ttype nat hook output priority -100; policy accept;
        \t\tjump services
        \t}
        }
        """;

    assertThat(RulesetText.programmed(reordered)).isEqualTo(RulesetText.programmed(TABLE));
  }

  @Test
  void aChangedRuleOrElementProgramsSomethingElse() {
    assertThat(RulesetText.programmed(TABLE.replace("10.96.0.16", "10.96.0.17")))
        .isNotEqualTo(RulesetText.programmed(TABLE));
    assertThat(RulesetText.programmed(TABLE.replace("jump services", "jump firewall")))
        .isNotEqualTo(RulesetText.programmed(TABLE));
    assertThat(RulesetText.programmed(TABLE.replace("\tchain lb-1 {\n\t}", "")))
        .isEqualTo(RulesetText.programmed(TABLE));
  }

  @Test
  void aNamedCounterIsProgrammedWhateverItHasCounted() {
    var counted =
        TABLE.replace("\tchain nat-output {", COUNTER.formatted(7) + "\tchain nat-output {");
    var countedMore =
        TABLE.replace("\tchain nat-output {", COUNTER.formatted(90) + "\tchain nat-output {");

    assertThat(RulesetText.programmed(countedMore)).isEqualTo(RulesetText.programmed(counted));
    assertThat(RulesetText.programmed(counted)).isNotEqualTo(RulesetText.programmed(TABLE));
  }

  @Test
  void anEndpointCountNoPortHasAnyMoreProgramsNothing() {
    var left =
        TABLE.replace(
            "\tchain nat-output {",
            "\tmap lb-7 {\n\t\ttypeof ip daddr . meta l4proto . th dport . numgen random mod 1 :"
                + " ip daddr . th dport\n\t}\n\n\tchain lb-7 {\n\t\tdnat ip to ip daddr . meta"
                + " l4proto . th dport . numgen random mod 7 map @lb-7\n\t}\n\n\tchain nat-output {");
    var used =
        left.replace(
            "numgen random mod 1 : ip daddr . th dport\n\t}",
            "numgen random mod 1 : ip daddr . th dport\n\t\telements = { 10.96.0.9 . tcp . 80 . 0 :"
                + " 10.244.1.9 . 8080 }\n\t}");

    assertThat(RulesetText.programmed(left)).isEqualTo(RulesetText.programmed(TABLE));
    assertThat(RulesetText.programmed(used)).isNotEqualTo(RulesetText.programmed(TABLE));
  }

  @Test
  void anElementOfACounterSetIsProgrammedWhateverItHasCounted() {
    var counted =
        TABLE.replace("\tchain nat-output {", COUNTER_SET.formatted(7) + "\tchain nat-output {");
    var countedMore =
        TABLE.replace("\tchain nat-output {", COUNTER_SET.formatted(255) + "\tchain nat-output {");

    assertThat(RulesetText.programmed(countedMore)).isEqualTo(RulesetText.programmed(counted));
    assertThat(RulesetText.programmed(counted)).isNotEqualTo(RulesetText.programmed(TABLE));
  }

  @Test
  void theObjectsOfAFullSyncProgramTheSameWhateverGenerationTheyAreNamedFor() {
    var later =
        TABLE
            .replace("chain lb-2 {", "chain lb-2-g1 {")
            .replace("@cluster-endpoints", "@cluster-endpoints-g1")
            .replace("set cluster-ips {", "set cluster-ips-g1 {")
            .replace("jump services", "jump services-g1");

    assertThat(RulesetText.programmed(later)).isEqualTo(RulesetText.programmed(TABLE));
    assertThat(RulesetText.programmed(TABLE.replace("jump services", "jump services-gx")))
        .isNotEqualTo(RulesetText.programmed(TABLE));
  }

  private static final String COUNTER_SET =
      "\tset connection-counts {\n\t\ttype mark\n\t\tcounter\n"
          + "\t\telements = { 0x00000001 counter packets %d bytes 780 }\n\t}\n\n";

  private static final String COUNTER =
      "\tcounter locality-zone {\n\t\tpackets %d bytes 420\n\t}\n\n";
}
