package dev.proxima.proxy.nftables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import org.junit.jupiter.api.Test;

class NftTransactionTest {
  private final NftText v4 = new NftText(IpFamily.IPV4);

  @Test
  void holdsItsOperationsInTheOrderMadeAndAnotherTransactionsAfterThem() {
    var elements = new NftTransaction(v4).addElements("hairpins", List.of(NftElement.of("a . a")));
    var transaction =
        new NftTransaction(v4)
            .addChain(NftChain.regular("lb-2"))
            .addRule(NftRule.of("lb-2", "drop"))
            .flushChain("lb-3")
            .deleteSet(NftSet.Kind.SET, "affinity-x")
            .append(elements);

    assertThat(transaction)
        .hasToString(
            """
            add chain ip proxima lb-2
            add rule ip proxima lb-2 drop
            flush chain ip proxima lb-3
            delete set ip proxima affinity-x
            add element ip proxima hairpins {
            \ta . a
            }
            """);
  }

  @Test
  void anEmptyTransactionHasNoText() {
    var transaction =
        new NftTransaction(v4).addElements("hairpins", List.of()).deleteKeys("x", List.of());

    assertThat(transaction.isEmpty()).isTrue();
    transaction.addTable();
    assertThat(transaction.isEmpty()).isFalse();
    transaction.clear();
    assertThat(transaction).hasToString("");
  }
}
