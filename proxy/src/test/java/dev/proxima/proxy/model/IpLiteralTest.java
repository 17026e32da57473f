package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IpLiteralTest {
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
    assertThat(printed(IpLiteral.bytes(address))).isEqualTo(strict);
    assertThat(printed(IpLiteral.lenientBytes(address))).isEqualTo(lenient);
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
    assertThat(IpLiteral.familyOfCidr(cidr)).isEqualTo(expected);
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
    assertThat(IpLiteral.contains(cidr, ip)).isEqualTo(expected);
  }
}
