package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServicePortCountsTest {
  private static final ServicePortName A =
      new ServicePortName(ObjectKey.parse("shop/a"), "http", Protocol.TCP);
  private static final ServicePortName B =
      new ServicePortName(ObjectKey.parse("shop/b"), "http", Protocol.TCP);
  private static final ServicePortName C =
      new ServicePortName(ObjectKey.parse("shop/c"), "", Protocol.UDP);

  /** Figures in locality order: node, zone, other-zone, unknown. */
  private static Map<Locality, Long> counts(long... figures) {
    var byLocality = new java.util.EnumMap<Locality, Long>(Locality.class);
    for (var locality : Locality.values()) {
      byLocality.put(locality, figures[locality.ordinal()]);
    }
    return byLocality;
  }

  @Test
  void keepsEachPortsCountsSortedWithEveryLocalityAtZeroWhereItHasNone() {
    var ports = ServicePortCounts.of(Map.of(C, Map.of(Locality.ZONE, 4L), A, counts(1, 2, 3, 4)));

    assertThat(ports.ports()).containsExactly(A, C);
    assertThat(ports.count(C, Locality.ZONE)).isEqualTo(4);
    assertThat(ports.count(B, Locality.ZONE)).isZero();
    assertThat(ports.asMap())
        .containsExactly(Map.entry(A, counts(1, 2, 3, 4)), Map.entry(C, counts(0, 4, 0, 0)));
  }

  @Test
  void addingTwoFamiliesGivesEveryPortOfEitherWithTheCountsOfPortsInBothSummed() {
    var ipv4 = ServicePortCounts.of(Map.of(A, counts(1, 0, 0, 0), C, counts(0, 1, 0, 0)));
    var ipv6 = ServicePortCounts.of(Map.of(B, counts(5, 0, 0, 0), C, counts(0, 2, 0, 7)));

    assertThat(ipv4.plus(ipv6).asMap())
        .containsExactly(
            Map.entry(A, counts(1, 0, 0, 0)),
            Map.entry(B, counts(5, 0, 0, 0)),
            Map.entry(C, counts(0, 3, 0, 7)));
    assertThat(ipv4.plus(ServicePortCounts.NONE)).isSameAs(ipv4);
    assertThat(ServicePortCounts.NONE.plus(ipv6)).isSameAs(ipv6);
  }

  @Test
  void addingLeavesTheOriginalAlone() {
    var ports = ServicePortCounts.of(Map.of(A, counts(1, 2, 3, 4)));

    var more = ports.plus(ServicePortCounts.of(Map.of(A, counts(10, 0, 0, 1))));

    assertThat(more.asMap()).containsExactly(Map.entry(A, counts(11, 2, 3, 5)));
    assertThat(ports.asMap()).containsExactly(Map.entry(A, counts(1, 2, 3, 4)));
  }
}
