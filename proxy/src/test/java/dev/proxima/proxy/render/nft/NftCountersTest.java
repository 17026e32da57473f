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
}
