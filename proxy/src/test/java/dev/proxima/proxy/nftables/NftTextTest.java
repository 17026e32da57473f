package dev.proxima.proxy.nftables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import org.junit.jupiter.api.Test;

class NftTextTest {
  private final NftText v6 = new NftText(IpFamily.IPV6);

  /** Elements with and without value and comment. */
  private static final List<NftElement> ELEMENTS =
      List.of(
          new NftElement("fd00::1 . tcp . 80", "goto lb-2", "shop/web"),
          new NftElement("fd00::2 . tcp . 80", "goto lb-1", null),
          new NftElement("fd00::3 . tcp . 80", null, "a : b comment \"c\""),
          NftElement.of("fd00::4 . tcp . 80"));

  @Test
  void writesElementsOnePerLineWithCommentBeforeValueAndNothingForNone() {
    var out = new NftTransaction(v6);
    out.addElements("service-ips", ELEMENTS);
    out.addElements("hairpins", List.of());
    out.deleteElements("hairpins", List.of());

    assertThat(out)
        .hasToString(
            "add element ip6 proxima service-ips {\n"
                + "\tfd00::1 . tcp . 80 comment \"shop/web\" : goto lb-2,\n"
                + "\tfd00::2 . tcp . 80 : goto lb-1,\n"
                + "\tfd00::3 . tcp . 80 comment \"a_:_b_comment__c_\",\n"
                + "\tfd00::4 . tcp . 80\n"
                + "}\n");
  }

  @Test
  void deletesElementsByTheirKeyAlone() {
    var out = new NftTransaction(v6);
    out.deleteElements("service-ips", ELEMENTS);

    assertThat(out)
        .hasToString(
            "delete element ip6 proxima service-ips {\n"
                + "\tfd00::1 . tcp . 80,\n"
                + "\tfd00::2 . tcp . 80,\n"
                + "\tfd00::3 . tcp . 80,\n"
                + "\tfd00::4 . tcp . 80\n"
                + "}\n");
  }

  @Test
  void aTenantsCommentCannotEndTheQuotedStringOrTheLine() {
    var element = new NftElement("fd00::1 . tcp . 80", "goto lb-1", "ns/a\" : drop\n}");
    var rule = new NftRule("services", "drop", "x\"; flush ruleset", false);
    var out = new NftTransaction(v6);
    out.addElements("service-ips", List.of(element));
    out.addRule(rule);

    assertThat(element.comment()).isEqualTo("ns/a__:_drop__");
    assertThat(out)
        .hasToString(
            "add element ip6 proxima service-ips {\n"
                + "\tfd00::1 . tcp . 80 comment \"ns/a__:_drop__\" : goto lb-1\n"
                + "}\n"
                + "add rule ip6 proxima services drop comment \"x___flush_ruleset\"\n");
  }

  @Test
  void cutsACommentToNftsLimitAndKeepsACleanOneAsItIs() {
    var clean = "shop/web:http";
    assertThat(NftText.comment(clean)).isSameAs(clean);
    assertThat(NftText.comment("a".repeat(300))).hasSize(128);
  }

  @Test
  void aSetCommentKeepsItsWordsButNoQuote() {
    var out = new NftTransaction(v6);
    out.addSet(NftSet.set("hairpins", "type ipv6_addr . ipv6_addr ;", "endpoint . endpoint"));
    out.addSet(NftSet.map("x", "type ipv6_addr : verdict ;", "a \"b\"\nc"));
    out.addSet(NftSet.set("affinity-a", "type ipv6_addr ; flags dynamic,timeout ;", null));

    assertThat(out)
        .hasToString(
            "add set ip6 proxima hairpins { type ipv6_addr . ipv6_addr ;"
                + " comment \"endpoint . endpoint\" ; }\n"
                + "add map ip6 proxima x { type ipv6_addr : verdict ; comment \"a _b__c\" ; }\n"
                + "add set ip6 proxima affinity-a { type ipv6_addr ; flags dynamic,timeout ; }\n");
  }

  @Test
  void writesEveryOperationOnTheFamilysTable() {
    var out = new NftTransaction(v6);
    out.replaceTable();
    out.addChain(NftChain.base("nat-output", "nat", "output", -100));
    out.addChain(NftChain.regular("services"));
    out.addRule(NftRule.of("nat-output", "jump services"));
    out.flushChain("services");
    out.deleteChain("lb-3");
    out.deleteSet(NftSet.Kind.SET, "affinity-a");
    out.deleteSet(NftSet.Kind.MAP, "old-map");
    out.deleteCounter("endpoints-node");
    out.addKeys("service-cidrs", List.of("fd00:10::/108"));
    out.deleteKeys("service-cidrs", List.of("fd00:20::/108"));

    assertThat(out)
        .hasToString(
            """
            add table ip6 proxima { comment "rules for proxima" ; }
            delete table ip6 proxima
            add table ip6 proxima { comment "rules for proxima" ; }
            add chain ip6 proxima nat-output { type nat hook output priority -100 ; }
            add chain ip6 proxima services
            add rule ip6 proxima nat-output jump services
            flush chain ip6 proxima services
            delete chain ip6 proxima lb-3
            delete set ip6 proxima affinity-a
            delete map ip6 proxima old-map
            delete counter ip6 proxima endpoints-node
            add element ip6 proxima service-cidrs {
            \tfd00:10::/108
            }
            delete element ip6 proxima service-cidrs {
            \tfd00:20::/108
            }
            """);
    assertThat(new NftTransaction(v6).deleteTable().toString())
        .isEqualTo("add table ip6 proxima\ndelete table ip6 proxima\n");
    assertThat(
            new NftTransaction(v6)
                .addChain(NftChain.regular("sync-generation"))
                .addRule(NftRule.of("services", "drop"))
                .toString())
        .isEqualTo("add chain ip6 proxima sync-generation\nadd rule ip6 proxima services drop\n");
  }

  @Test
  void sizesAnElementAsItIsWritten() {
    var element = new NftElement("fd00::1 . tcp . 80", "goto lb-2", "shop/web");
    var out = new StringBuilder();
    new NftText(IpFamily.IPV6).element(out, element);

    assertThat(NftText.length(element)).isEqualTo(out.length());
    assertThat(NftText.length(NftElement.of("a"))).isEqualTo(1);
  }
}
