package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Collectors;
import java.util.stream.IntStream;
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

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(
      nullValues = "none",
      value = {
        "10.0.0.1, IPV4",
        "255.255.255.255, IPV4",
        "256.0.0.1, none",
        "10.0.0, none",
        "01.2.3.4, none",
        "fd00::1, IPV6",
        "::, IPV6",
        "2001:db8:0:0:0:0:0:1, IPV6",
        "::ffff:10.0.0.1, IPV6",
        "fd00::1::2, none",
        "12345::1, none",
        "example.com, none",
        "'', none",
      })
  void recognisesAddressLiteralsWithoutDns(String address, IpFamily expected) {
    assertThat(IpFamily.of(address)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}: strict {1}, lenient {2}")
  @CsvSource(
      nullValues = "none",
      value = {
        "10.0.0.1, 10.0.0.1, 10.0.0.1",
        "0.0.0.0, 0.0.0.0, 0.0.0.0",
        "255.255.255.255, 255.255.255.255, 255.255.255.255",
        "010.1.1.1, none, 10.1.1.1",
        "10.00.1.1, none, 10.0.1.1",
        "00000255.1.1.1, none, 255.1.1.1",
        "000000255.1.1.1, none, none",
        "1000.1.1.1, none, none",
        "256.1.1.1, none, none",
        "1.2.3.4., none, none",
        ".1.2.3.4, none, none",
        "1..2.3, none, none",
        "1.2.3, none, none",
        "1.2.3.4.5, none, none",
        "1.2.3.-4, none, none",
        "1.2.3.+4, none, none",
        "'1.2.3.4 ', none, none",
        "1.2.3.٤, none, none",
        "., none, none",
      })
  void readsDottedQuadsOctetByOctet(String address, String strict, String lenient) {
    assertThat(printed(IpAddress.literalBytes(address))).isEqualTo(strict);
    assertThat(printed(IpAddress.bytes(address, true))).isEqualTo(lenient);
  }

  private static String printed(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    return IntStream.range(0, bytes.length)
        .mapToObj(i -> Integer.toString(bytes[i] & 0xff))
        .collect(Collectors.joining("."));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(
      nullValues = "none",
      value = {
        "10.0.0.0/8, IPV4",
        "0.0.0.0/0, IPV4",
        "10.0.0.0/33, none",
        "fd00::/64, IPV6",
        "fd00::/129, none",
        "10.0.0.0, none",
        "10.0.0.0/x, none",
      })
  void recognisesCidrs(String cidr, IpFamily expected) {
    assertThat(Cidr.familyOf(cidr)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{1} in {0}: {2}")
  @CsvSource({
    "10.0.0.0/8, 10.255.1.2, true",
    "10.0.0.0/8, 11.0.0.1, false",
    "192.168.1.0/24, 192.168.1.200, true",
    "192.168.1.0/25, 192.168.1.200, false",
    "0.0.0.0/0, 8.8.8.8, true",
    "fd00::/8, fd12::1, true",
    "fd00::/8, fe80::1, false",
    "10.0.0.0/8, fd00::1, false",
    "garbage, 10.0.0.1, false",
  })
  void decidesCidrMembershipByBits(String cidr, String ip, boolean expected) {
    assertThat(Cidr.contains(cidr, ip)).isEqualTo(expected);
  }
}
