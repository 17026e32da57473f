package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NftConfigTest {
  @Test
  void defaultsToMarkBit14AndNodePortsOnEveryLocalAddress() {
    NftConfig config = NftConfig.of(NftFamily.IPV4, List.of("10.0.0.0/8"));

    assertThat(config.masqueradeBit()).isEqualTo(14);
    assertThat(config.masqueradeMark()).isEqualTo("0x4000");
    assertThat(config.masqueradeAll()).isFalse();
    assertThat(config.nodePortAddresses()).isEmpty();
  }

  @Test
  void normalizesCidrsAndAddresses() {
    NftConfig config =
        NftConfig.of(NftFamily.IPV6, List.of("FD00:10::5/64", "fd00:10::/96", "fd01::/48"))
            .withNodePortAddresses(List.of("2001:DB8::1", "2001:db8:0::1"));

    assertThat(config.clusterCidrs()).containsExactly("fd00:10::/64", "fd01::/48");
    assertThat(config.nodePortAddresses()).containsExactly("2001:db8::1");
  }

  @Test
  void rejectsWhatWouldMakeTheRulesetFailToLoad() {
    assertThatThrownBy(() -> NftConfig.of(NftFamily.IPV4, List.of("fd00::/64")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fd00::/64");
    assertThatThrownBy(() -> NftConfig.of(NftFamily.IPV4, List.of("10.0.0.0/40")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> NftConfig.of(NftFamily.IPV4, List.of()).withNodePortAddresses(List.of("eth0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("eth0");
    assertThatThrownBy(() -> NftConfig.of(NftFamily.IPV4, List.of()).withMasqueradeBit(32))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void printsTheHighestMarkBitUnsigned() {
    assertThat(NftConfig.of(NftFamily.IPV4, List.of()).withMasqueradeBit(31).masqueradeMark())
        .isEqualTo("0x80000000");
  }
}
