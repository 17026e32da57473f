package dev.proxima.proxy.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.testing.ConntrackFixtures;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which conntrack sysctls kube-proxy's settings write, on which host. */
class ConntrackTuningTest {
  private static final ConntrackSettings DEFAULTS = ConntrackFixtures.DEFAULTS;

  static Stream<Arguments> maxima() {
    return Stream.of(
        // per core, min, CPUs, host's value, wanted, written
        Arguments.of(32768, 131072, 2, 65536L, 131072L, true), // the minimum wins on 2 CPUs
        Arguments.of(32768, 131072, 8, 131072L, 262144L, true), // per core × 8
        Arguments.of(32768, 131072, 64, 262144L, 1048576L, true), // capped at 2^20
        Arguments.of(32768, 131072, 8, 2000000L, 262144L, false), // never lowered
        Arguments.of(32768, 131072, 8, 262144L, 262144L, false), // already so
        Arguments.of(32768, 131072, 8, null, 262144L, true), // unreadable: try
        Arguments.of(32768, 2000000, 64, 262144L, 2000000L, true)); // a min above the cap
  }

  @ParameterizedTest
  @MethodSource("maxima")
  void nfConntrackMaxIsPerCoreWithAMinimumAndOnlyEverRaised(
      int perCore, int min, int cpus, Long host, long wanted, boolean written) {
    var settings =
        new ConntrackSettings(
            perCore, min, Duration.ZERO, Duration.ZERO, false, Duration.ZERO, Duration.ZERO);

    var decisions =
        ConntrackTuning.decide(settings, cpus, host(Map.of(), ConntrackTuning.MAX, host));

    assertThat(decisions)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.key()).isEqualTo("nf_conntrack_max");
              assertThat(d.wanted()).isEqualTo(wanted);
              assertThat(d.write()).isEqualTo(written);
            });
  }

  @Test
  void aZeroMaxPerCoreLeavesTheLimitAndIgnoresTheMinimum() {
    var settings =
        new ConntrackSettings(
            0, 131072, Duration.ZERO, Duration.ZERO, false, Duration.ZERO, Duration.ZERO);

    assertThat(ConntrackTuning.decide(settings, 4, key -> OptionalLong.of(1))).isEmpty();
  }

  @Test
  void theDefaultsWriteTheTcpTimeoutsThatDifferAndLeaveUdpAndBeLiberal() {
    var host =
        Map.of(
            ConntrackTuning.MAX, 262144L,
            ConntrackTuning.TCP_ESTABLISHED, 432000L,
            ConntrackTuning.TCP_CLOSE_WAIT, 3600L);

    var writes =
        ConntrackTuning.decide(DEFAULTS, 2, host(host, null, null)).stream()
            .filter(ConntrackTuning.Decision::write)
            .map(d -> d.key() + "=" + d.wanted())
            .toList();

    assertThat(writes)
        .as("a timeout is set to kube-proxy's value even when the host's is longer")
        .containsExactly("nf_conntrack_tcp_timeout_established=86400");
  }

  @Test
  void udpTimeoutsAndBeLiberalAreWrittenWhenAsked() {
    var settings =
        new ConntrackSettings(
            0,
            0,
            Duration.ZERO,
            Duration.ZERO,
            true,
            Duration.ofSeconds(30),
            Duration.ofMinutes(5));

    var writes =
        ConntrackTuning.decide(settings, 2, host(Map.of(ConntrackTuning.UDP, 30L), null, null))
            .stream()
            .filter(ConntrackTuning.Decision::write)
            .map(d -> d.key() + "=" + d.wanted())
            .toList();

    assertThat(writes)
        .containsExactly("nf_conntrack_tcp_be_liberal=1", "nf_conntrack_udp_timeout_stream=300");
  }

  private static java.util.function.Function<String, OptionalLong> host(
      Map<String, Long> values, String key, Long value) {
    var all = new HashMap<>(values);
    if (key != null && value != null) {
      all.put(key, value);
    }
    return k -> all.containsKey(k) ? OptionalLong.of(all.get(k)) : OptionalLong.empty();
  }
}
