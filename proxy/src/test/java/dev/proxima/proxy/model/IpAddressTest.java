package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressTest {
  @ParameterizedTest
  @CsvSource({
    "10.0.0.1, 10.0.0.1",
    "010.000.001.005, 10.0.1.5",
    "' 10.0.0.1\u00a0', 10.0.0.1",
    "fd00::1, fd00::1",
    "fd00:0::1, fd00::1",
    "FD00::1, fd00::1",
    "fd00:0000:0000:0000:0000:0000:0000:0001, fd00::1",
    "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
  })
  void spellingsTheApiServerAcceptsBecomeOneCanonicalAddress(String raw, String canonical) {
    assertThat(IpAddress.parse(raw)).hasToString(canonical);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "example.com", "10.0.0", "10.0.0.256", "fd00::1%eth0", "1::2::3"})
  void whatIsNotAnAddressIsNull(String raw) {
    assertThat(IpAddress.parse(raw)).isNull();
  }

  @ParameterizedTest
  @CsvSource({
    "0.0.0.0, unspecified",
    "127.0.0.1, loopback",
    "127.8.9.10, loopback",
    "169.254.169.254, link-local",
    "224.0.0.1, multicast",
    "239.1.2.3, multicast",
    "255.255.255.255, broadcast",
    "::, unspecified",
    "::1, loopback",
    "fe80::1, link-local",
    "febf::1, link-local",
    "ff02::1, multicast",
    "::ffff:127.0.0.1, loopback",
    "::ffff:169.254.169.254, link-local",
  })
  void specialAddressesSayWhatTheyAre(String raw, String kind) {
    assertThat(IpAddress.parse(raw).special()).isEqualTo(kind);
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.244.1.5", "192.0.2.1", "fd00::1", "2001:db8::1", "fec0::1"})
  void ordinaryAddressesAreNotSpecial(String raw) {
    assertThat(IpAddress.parse(raw).special()).isNull();
  }

  @ParameterizedTest
  @CsvSource({
    "10.0.0.0/08, 10.0.0.0/8",
    "010.0.0.0/8, 10.0.0.0/8",
    "'192.168.0.0/16\u00a0', 192.168.0.0/16",
    "10.1.2.3/8, 10.0.0.0/8",
    "FD00::/8, fd00::/8",
    "0.0.0.0/0, 0.0.0.0/0",
  })
  void cidrsAreReadLikeParseCidrSloppyAndPrintedCanonically(String raw, String canonical) {
    assertThat(Cidr.parse(raw)).hasToString(canonical);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "ten/8", "10.0.0.0/8/8", "::/129"})
  void whatIsNotACidrIsNull(String raw) {
    assertThat(Cidr.parse(raw)).isNull();
  }
}
