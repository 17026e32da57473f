package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NftCountersTest {
  @Test
  void readsEachNamedCountersPacketsFromNftsListing() {
    var listing =
        """
        table ip proxima {
        	counter locality-node {
        		packets 3 bytes 180
        	}

        	counter locality-other-zone {
        		packets 0 bytes 0
        	}

        	counter no-endpoints {
        		packets 12 bytes 720
        	}
        }
        """;

    assertThat(NftCounters.parse(listing))
        .containsExactly(
            java.util.Map.entry("locality-node", 3L),
            java.util.Map.entry("locality-other-zone", 0L),
            java.util.Map.entry("no-endpoints", 12L));
  }

  @Test
  void groupsEachCountedServicePortsCountersByLocalityAndLeavesOutPortsNotLoadedYet() {
    var web =
        new dev.proxima.proxy.model.ServicePortName(
            dev.proxima.model.ObjectKey.parse("shop/web"),
            "http",
            dev.proxima.proxy.model.Protocol.TCP);
    var pending =
        new dev.proxima.proxy.model.ServicePortName(
            dev.proxima.model.ObjectKey.parse("shop/new"),
            "",
            dev.proxima.proxy.model.Protocol.TCP);
    var stem = NftNames.serviceCounterStem(web);
    var listing =
        "table ip proxima {\n"
            + "\tcounter locality-node {\n\t\tpackets 9 bytes 540\n\t}\n"
            + "\tcounter "
            + stem
            + "node {\n\t\tpackets 4 bytes 240\n\t}\n"
            + "\tcounter "
            + stem
            + "other-zone {\n\t\tpackets 1 bytes 60\n\t}\n"
            + "}\n";

    var ports =
        NftCounters.servicePorts(
            NftCounters.parse(listing),
            java.util.Map.of(stem, web, NftNames.serviceCounterStem(pending), pending));

    assertThat(ports).containsOnlyKeys(web);
    assertThat(ports.get(web))
        .containsOnly(
            java.util.Map.entry(dev.proxima.proxy.model.Locality.NODE, 4L),
            java.util.Map.entry(dev.proxima.proxy.model.Locality.OTHER_ZONE, 1L));
  }
}
