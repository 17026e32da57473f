package dev.proxima.proxy.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import org.junit.jupiter.api.Test;

class FamilySettingsTest {
  @Test
  void defaultsToMarkBit14AndNodePortsOnEveryLocalAddress() {
    var config = FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

    assertThat(config.masqueradeBit()).isEqualTo(14);
    assertThat(config.masqueradeMark()).isEqualTo("0x4000");
    assertThat(config.masqueradeAll()).isFalse();
    assertThat(config.nodePortAddresses()).isEmpty();
  }

  @Test
  void normalizesCidrsAndAddresses() {
    var config =
        FamilySettings.of(IpFamily.IPV6, List.of("FD00:10::5/64", "fd00:10::/96", "fd01::/48"))
            .withNodePortAddresses(List.of("2001:DB8::1", "2001:db8:0::1"));

    assertThat(config.clusterCidrs()).containsExactly("fd00:10::/64", "fd01::/48");
    assertThat(config.nodePortAddresses()).containsExactly("2001:db8::1");
  }

  @Test
  void rejectsWhatWouldMakeTheRulesetFailToLoad() {
    assertThatThrownBy(() -> FamilySettings.of(IpFamily.IPV4, List.of("fd00::/64")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fd00::/64");
    assertThatThrownBy(() -> FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/40")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                FamilySettings.of(IpFamily.IPV4, List.of()).withNodePortAddresses(List.of("eth0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("eth0");
    assertThatThrownBy(() -> FamilySettings.of(IpFamily.IPV4, List.of()).withMasqueradeBit(32))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void printsTheHighestMarkBitUnsigned() {
    assertThat(FamilySettings.of(IpFamily.IPV4, List.of()).withMasqueradeBit(31).masqueradeMark())
        .isEqualTo("0x80000000");
  }

  @Test
  void givesBothModesTheSameNormalizedCidrsSoIptablesNeverSeesAMaskItRejects() {
    var config =
        FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.7/8", "10.1.0.0/16", "10.0.0.0/8"));

    assertThat(config.clusterCidrs()).containsExactly("10.0.0.0/8");
  }

  @Test
  void spellsTheLoopbackRangeOfEachFamily() {
    assertThat(IpFamily.IPV4.loopback()).isEqualTo("127.0.0.0/8");
    assertThat(IpFamily.IPV6.loopback()).isEqualTo("::1/128");
  }
}
