package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NftAddressesTest {
  @ParameterizedTest
  @CsvSource({
    "10.0.0.1, IPV4, 10.0.0.1",
    "0.0.0.0, IPV4, 0.0.0.0",
    "FD00::1, IPV6, fd00::1",
    "fd00:0:0:0:0:0:0:1, IPV6, fd00::1",
    "2001:db8:0:0:1:0:0:1, IPV6, 2001:db8::1:0:0:1",
    "2001:0db8:0000:0001:0000:0000:0000:0001, IPV6, 2001:db8:0:1::1",
    "1:0:1:1:1:1:1:1, IPV6, 1:0:1:1:1:1:1:1",
    "::, IPV6, ::",
    "::1, IPV6, ::1",
    "1::, IPV6, 1::",
    "::ffff:10.0.0.1, IPV6, ::ffff:a00:1",
  })
  void printsAddressesCanonically(String text, IpFamily family, String expected) {
    assertThat(NftAddresses.canonical(text, family)).contains(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "localhost",
        "10.0.0",
        "10.0.0.256",
        "010.0.0.1",
        "10.00.0.1",
        "10.0.0.1.2",
        "1.2.3.-4",
        "1:2:3:4:5:6:7:8:9",
        "1::2::3",
        "fd00::g",
        "fd00::1%eth0",
        "12345::1",
        ":1:2"
      })
  void rejectsAnythingThatIsNotAnAddressLiteralWithoutResolvingIt(String text) {
    assertThat(NftAddresses.parse(text)).isEmpty();
  }

  @Test
  void rejectsAnAddressOfTheOtherFamily() {
    assertThat(NftAddresses.canonical("fd00::1", IpFamily.IPV4)).isEmpty();
    assertThat(NftAddresses.canonical("10.0.0.1", IpFamily.IPV6)).isEmpty();
  }

  @Test
  void clearsHostBitsOfACidrAndTakesABareAddressAsAHostRoute() {
    assertThat(NftAddresses.parseCidr("10.1.2.3/8", IpFamily.IPV4).map(Object::toString))
        .contains("10.0.0.0/8");
    assertThat(NftAddresses.parseCidr("10.1.2.3/31", IpFamily.IPV4).map(Object::toString))
        .contains("10.1.2.2/31");
    assertThat(NftAddresses.parseCidr("192.0.2.7", IpFamily.IPV4).map(Object::toString))
        .contains("192.0.2.7/32");
    assertThat(NftAddresses.parseCidr("fd00::1:2/100", IpFamily.IPV6).map(Object::toString))
        .contains("fd00::/100");
    assertThat(NftAddresses.parseCidr("0.0.0.0/0", IpFamily.IPV4).map(Object::toString))
        .contains("0.0.0.0/0");
    assertThat(NftAddresses.parseCidr("10.0.0.0/33", IpFamily.IPV4)).isEmpty();
    assertThat(NftAddresses.parseCidr("10.0.0.0/", IpFamily.IPV4)).isEmpty();
    assertThat(NftAddresses.parseCidr("10.0.0.0/+8", IpFamily.IPV4)).isEmpty();
  }

  @Test
  void keepsOnlyTheOutermostOfNestedOrRepeatedCidrs() {
    List<Cidr> cidrs =
        List.of("10.1.0.0/16", "192.0.2.0/24", "10.0.0.0/8", "10.0.0.0/8", "10.2.3.0/24").stream()
            .map(text -> NftAddresses.parseCidr(text, IpFamily.IPV4).orElseThrow())
            .toList();

    assertThat(Cidr.outermost(cidrs).stream().map(Object::toString))
        .containsExactly("192.0.2.0/24", "10.0.0.0/8");
  }
}
