package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NftCountersTest {
  @Test
  void readsEachNodeWideCountFromTheListingOfTheConnectionCountsSet() {
    // As nft 1.0.6 lists the set (nft -i, "list set ip proxima connection-counts").
    var listing =
        """
        table ip proxima {
        	set connection-counts {
        		type mark
        		counter
        		comment "connections per locality, without endpoints"
        		elements = { 0x00000000 counter packets 12 bytes 720, 0x00000001 counter packets 3 bytes 180, 0x00000003 counter packets 0 bytes 0, 0x00000009 counter packets 5 bytes 300 }
        	}
        }
        """;

    assertThat(NftCounters.parse(listing))
        .containsExactly(
            java.util.Map.entry("no-endpoints", 12L),
            java.util.Map.entry("locality-node", 3L),
            java.util.Map.entry("locality-other-zone", 0L));
  }

  @Test
  void aListingOfNamedCountersOnlyHasNoNodeWideCount() {
    var listing =
        "table ip proxima {\n\tcounter locality-node {\n\t\tpackets 3 bytes 180\n\t}\n}\n";

    assertThat(NftCounters.parse(listing)).isEmpty();
  }

  private static final ServicePortName WEB =
      new ServicePortName(ObjectKey.parse("shop/web"), "http", Protocol.TCP);
  private static final ServicePortName PENDING =
      new ServicePortName(ObjectKey.parse("shop/new"), "", Protocol.TCP);

  /** What {@code nft -f -} prints for the counters and the four counting sets (ip). */
  private static final String IPV4_LISTING =
      """
      table ip proxima {
      	set connection-counts {
      		type mark
      		counter
      		elements = { 0x00000000 counter packets 0 bytes 0, 0x00000001 counter packets 9 bytes 540 }
      	}
      }
      table ip proxima {
      	set service-node {
      		type ipv4_addr . inet_proto . inet_service
      		counter
      		comment "Service address . proto . endpoint port of counted ports, node"
      		elements = { 10.96.0.10 . tcp . 8080 counter packets 3 bytes 180,
      			     192.0.2.10 . tcp . 8080 counter packets 1 bytes 60,
      			     10.96.0.11 . udp . 53 counter packets 0 bytes 0 }
      	}
      }
      table ip proxima {
      	set service-zone {
      		type ipv4_addr . inet_proto . inet_service
      		counter
      		elements = { 10.96.0.10 . tcp . 8080 counter packets 2 bytes 120 }
      	}
      }
      table ip proxima {
      	set service-other-zone {
      		type ipv4_addr . inet_proto . inet_service
      		counter
      	}
      }
      table ip proxima {
      	set service-unknown {
      		type ipv4_addr . inet_proto . inet_service
      		counter
      		elements = { 10.96.0.10 . tcp . 8080 counter packets 0 bytes 0 }
      	}
      }
      """;

  @Test
  void readsEachCountingSetsElementsAndTheirPacketsKeyedAsTheRendererWritesThem() {
    var sets = NftCounters.parseServiceSets(IPV4_LISTING);

    assertThat(sets.get(Locality.NODE))
        .containsExactly(
            Map.entry("10.96.0.10 . tcp . 8080", 3L),
            Map.entry("192.0.2.10 . tcp . 8080", 1L),
            Map.entry("10.96.0.11 . udp . 53", 0L));
    assertThat(sets.get(Locality.ZONE)).containsExactly(Map.entry("10.96.0.10 . tcp . 8080", 2L));
    assertThat(sets.get(Locality.OTHER_ZONE)).isEmpty();
    assertThat(sets.get(Locality.UNKNOWN))
        .containsExactly(Map.entry("10.96.0.10 . tcp . 8080", 0L));
  }

  @Test
  void readsIpv6Keys() {
    var listing =
        """
        table ip6 proxima {
        	set service-node {
        		type ipv6_addr . inet_proto . inet_service
        		counter
        		elements = { fd00:96::a . tcp . 8080 counter packets 5 bytes 400,
        			     2001:db8::1:0:0:10 . sctp . 9 counter packets 1 bytes 80 }
        	}
        }
        """;

    assertThat(NftCounters.parseServiceSets(listing).get(Locality.NODE))
        .containsExactly(
            Map.entry("fd00:96::a . tcp . 8080", 5L),
            Map.entry("2001:db8::1:0:0:10 . sctp . 9", 1L));
  }

  @Test
  void aListingWithoutTheSetsHasNoSetAndNoServicePort() {
    var listing = "table ip proxima {\n\tcounter no-endpoints {\n\t\tpackets 0 bytes 0\n\t}\n}\n";

    var sets = NftCounters.parseServiceSets(listing);

    assertThat(sets).isEmpty();
    assertThat(
            NftCounters.servicePortCounts(
                    listing, Map.of("10.96.0.10 . tcp . 8080", WEB), Set.of(WEB))
                .isEmpty())
        .isTrue();
  }

  @Test
  void sumsAPortsElementsPerLocalityAndShowsACountedPortWithoutCountsYetAtZero() {
    var ports =
        NftCounters.servicePortCounts(
                IPV4_LISTING,
                Map.of("10.96.0.10 . tcp . 8080", WEB, "192.0.2.10 . tcp . 8080", WEB),
                Set.of(WEB, PENDING))
            .asMap();

    assertThat(ports).containsOnlyKeys(WEB, PENDING);
    assertThat(ports.get(WEB)).isEqualTo(counts(4, 2, 0, 0));
    assertThat(ports.get(PENDING)).isEqualTo(counts(0, 0, 0, 0));
  }

  private static Map<Locality, Long> counts(long node, long zone, long otherZone, long unknown) {
    return Map.of(
        Locality.NODE, node,
        Locality.ZONE, zone,
        Locality.OTHER_ZONE, otherZone,
        Locality.UNKNOWN, unknown);
  }

  @Test
  void leavesOutElementsNoCountedPortOwns() {
    var ports =
        NftCounters.servicePortCounts(
                IPV4_LISTING, Map.of("10.96.0.10 . tcp . 8080", WEB), Set.of(WEB))
            .asMap();

    assertThat(ports.get(WEB)).containsEntry(Locality.NODE, 3L);
  }

  @Test
  void readsNodeCountersAndSetsFromTheSameListing() {
    assertThat(NftCounters.parse(IPV4_LISTING))
        .containsExactly(Map.entry("no-endpoints", 0L), Map.entry("locality-node", 9L));
  }

  @Test
  void readsElementsWhereverTheListingBreaksItsLinesAndLeavesOutACountBeyondALong() {
    var listing =
        "table ip proxima {\n\tset service-node {\n\t\ttype ipv4_addr . inet_proto ."
            + " inet_service\n\t\tcounter\n\t\telements = { 10.96.0.10 . tcp . 8080 counter"
            + " packets 3 bytes 180, 192.0.2.10 . tcp . 8080 counter packets 2 bytes 120,\n\t\t\t"
            + "     10.96.0.11 . udp . 53 counter packets 99999999999999999999 bytes 0 }\n\t}\n}\n";

    assertThat(NftCounters.parseServiceSets(listing).get(Locality.NODE))
        .containsExactly(
            Map.entry("10.96.0.10 . tcp . 8080", 3L), Map.entry("192.0.2.10 . tcp . 8080", 2L));
    assertThat(
            NftCounters.servicePortCounts(
                    listing,
                    Map.of("10.96.0.10 . tcp . 8080", WEB, "192.0.2.10 . tcp . 8080", WEB),
                    Set.of(WEB))
                .asMap()
                .get(WEB))
        .isEqualTo(counts(5, 0, 0, 0));
  }
}
