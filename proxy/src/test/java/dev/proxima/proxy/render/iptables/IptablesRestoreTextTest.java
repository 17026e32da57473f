package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class IptablesRestoreTextTest {
  private static final IptablesRule RULE =
      new IptablesRule("nat", "PROXIMA-SERVICES", "ns/web:http cluster IP", "-d 10.96.0.1 -j X");

  @Test
  void eachOperationIsWrittenAsTheToolReadsIt() {
    var transaction =
        new IptablesTransaction()
            .declare("nat", "PROXIMA-SVC-A")
            .append(RULE)
            .insert(RULE, 3)
            .delete(RULE)
            .deleteAt("nat", "PROXIMA-SERVICES", 7)
            .deleteChain("nat", "PROXIMA-SVC-A")
            .insertJump(
                new JumpRule(
                    "nat",
                    "PREROUTING",
                    List.of("-m", "comment", "--comment", "proxima service portals", "-j", "X")));

    assertThat(transaction.text())
        .isEqualTo(
            """
            *nat
            :PROXIMA-SVC-A - [0:0]
            -A PROXIMA-SERVICES -m comment --comment "ns/web:http cluster IP" -d 10.96.0.1 -j X
            -I PROXIMA-SERVICES 3 -m comment --comment "ns/web:http cluster IP" -d 10.96.0.1 -j X
            -D PROXIMA-SERVICES -m comment --comment "ns/web:http cluster IP" -d 10.96.0.1 -j X
            -D PROXIMA-SERVICES 7
            -X PROXIMA-SVC-A
            -I PREROUTING -m comment --comment "proxima service portals" -j X
            COMMIT
            """);
  }

  @Test
  void aCommentWithQuotesNewlinesAndBackslashesStaysOneQuotedArgumentOnOneLine() {
    var hostile =
        new IptablesRule(
            "filter", "PROXIMA-FIREWALL", "a \"b\\\n-A PROXIMA-SERVICES -j ACCEPT\n#", "-j DROP");

    String text = new IptablesTransaction().append(hostile).text();

    assertThat(text.lines())
        .containsExactly(
            "*filter",
            "-A PROXIMA-FIREWALL -m comment --comment \"a _b__-A PROXIMA-SERVICES -j ACCEPT__\""
                + " -j DROP",
            "COMMIT");
  }

  @Test
  void aCommentIsQuotedOnlyWhenItHasASpaceOrIsEmptyAndLeftOutWhenNull() {
    assertThat(IptablesRestoreText.line(new IptablesRule("nat", "C", "ns/web:http", "-j X")))
        .isEqualTo("-A C -m comment --comment ns/web:http -j X");
    assertThat(IptablesRestoreText.line(new IptablesRule("nat", "C", "\n", "-j X")))
        .as("a comment that sanitises to a lone underscore")
        .isEqualTo("-A C -m comment --comment _ -j X");
    assertThat(IptablesRestoreText.line(new IptablesRule("nat", "C", "  ", "-j X")))
        .isEqualTo("-A C -m comment --comment \"\" -j X");
    assertThat(IptablesRestoreText.line(IptablesRule.of("nat", "C", "-j X")))
        .isEqualTo("-A C -j X");
    assertThat(IptablesRestoreText.line(new IptablesRule("nat", "C", "only a comment", "")))
        .isEqualTo("-A C -m comment --comment \"only a comment\"");
  }

  @Test
  void aCommentIsCutToTheKernelsLimit() {
    String text = IptablesRestoreText.commentText("x".repeat(300));

    assertThat(text).hasSize(255);
  }

  @Test
  void aJumpsCommentIsSanitisedLikeAnyOther() {
    var jump =
        new JumpRule("filter", "INPUT", List.of("-m", "comment", "--comment", "a\"b c", "-j", "X"));

    assertThat(new IptablesTransaction().insertJump(jump).text())
        .contains("-I INPUT -m comment --comment \"a_b c\" -j X\n");
  }

  @Test
  void eachTableIsOneSectionInTheOrderTablesFirstAppear() {
    var transaction =
        new IptablesTransaction()
            .declare("filter", "PROXIMA-A")
            .declare("nat", "PROXIMA-B")
            .deleteChain("filter", "PROXIMA-A")
            .deleteChain("nat", "PROXIMA-B");

    assertThat(transaction.text())
        .isEqualTo(
            """
            *filter
            :PROXIMA-A - [0:0]
            -X PROXIMA-A
            COMMIT
            *nat
            :PROXIMA-B - [0:0]
            -X PROXIMA-B
            COMMIT
            """);
    assertThat(new IptablesTransaction().text()).isEmpty();
  }

  @Test
  void positionsStartAtOne() {
    assertThatThrownBy(() -> new IptablesTransaction().insert(RULE, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IptablesTransaction().deleteAt("nat", "C", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
