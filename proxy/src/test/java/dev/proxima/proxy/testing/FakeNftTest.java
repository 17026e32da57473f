package dev.proxima.proxy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FakeNftTest {
  private final FakeNft nft = new FakeNft();

  @BeforeEach
  void table() {
    nft.apply(
        """
        add table ip proxima
        add chain ip proxima services
        add chain ip proxima lb-1
        add map ip proxima service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
        add rule ip proxima services ip daddr . meta l4proto . th dport vmap @service-ips
        add element ip proxima service-ips { 172.30.0.41 . tcp . 80 : goto lb-1 }
        """);
  }

  @Test
  void aTransactionTheKernelWouldRefuseLeavesTheTableAsItWas() {
    var before = nft.list();

    assertThatThrownBy(
            () ->
                nft.apply(
                    """
                    add chain ip proxima more
                    add rule ip proxima missing accept
                    """))
        .hasMessageContaining("no chain missing");
    assertThat(nft.list()).isEqualTo(before);
  }

  @Test
  void whatNftRefusesTheFakeRefuses() {
    assertThatThrownBy(() -> nft.apply("add element ip proxima nowhere { 1.2.3.4 }\n"))
        .hasMessageContaining("no set nowhere");
    assertThatThrownBy(() -> nft.apply("delete chain ip proxima absent\n"))
        .hasMessageContaining("no chain absent");
    assertThatThrownBy(() -> nft.apply("create chain ip proxima lb-1\n"))
        .hasMessageContaining("exists already");
    assertThatThrownBy(() -> nft.apply("delete chain ip proxima lb-1\n"))
        .as("a chain a map element still jumps to")
        .hasMessageContaining("no chain lb-1");
    assertThatThrownBy(() -> nft.apply("delete map ip proxima service-ips\n"))
        .as("a map a rule still looks up")
        .hasMessageContaining("no set service-ips");
    assertThatThrownBy(
            () -> nft.apply("add element ip proxima service-ips { 172.30.0.42 . tcp : drop }\n"))
        .as("a key of two parts in a map of three")
        .hasMessageContaining("is not of");
  }

  @Test
  void theListingIsTheSameWhateverOrderTheObjectsCameIn() {
    var other = new FakeNft();
    other.apply(
        """
        add table ip proxima
        add map ip proxima service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
        add chain ip proxima lb-1
        add chain ip proxima services
        add element ip proxima service-ips { 172.30.0.41 . tcp . 80 : goto lb-1 }
        add rule ip proxima services ip daddr . meta l4proto . th dport vmap @service-ips
        """);

    assertThat(other.list()).isEqualTo(nft.list()).contains("172.30.0.41 . tcp . 80 : goto lb-1");
  }
}
