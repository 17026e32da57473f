package dev.proxima.proxy.nftables;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KernelTableTest {
  private static final String LISTING =
      """
      table ip proxima {
      	comment "rules for proxima { not a block"
      	set affinity-abc {
      		type ipv4_addr
      		size 65535
      		flags dynamic,timeout
      		timeout 10m
      	}
      	map service-ips {
      		type ipv4_addr . inet_proto . inet_service : verdict
      		comment "ClusterIPs, externalIPs and LB IPs"
      	}
      	chain nat-prerouting {
      		type nat hook prerouting priority dstnat; policy accept;
      		jump services
      	}
      	chain lb-3 {
      	}
      	chain sticky-x {
      		numgen random mod 2 vmap { 0 : goto affinity-a, 1 : goto affinity-b }
      	}
      }
      """;

  @Test
  void readsChainsWithTheirKindAndSetsWithTheirKeyword() {
    var table = KernelTable.parse(LISTING);

    assertThat(table.chains())
        .containsExactly(
            Map.entry("nat-prerouting", new KernelTable.Chain(true, false)),
            Map.entry("lb-3", new KernelTable.Chain(false, true)),
            Map.entry("sticky-x", new KernelTable.Chain(false, false)));
    assertThat(table.sets())
        .containsExactly(Map.entry("affinity-abc", "set"), Map.entry("service-ips", "map"));
  }

  @Test
  void anEmptyListingIsAnEmptyTable() {
    assertThat(KernelTable.parse("")).isEqualTo(KernelTable.none());
  }
}
