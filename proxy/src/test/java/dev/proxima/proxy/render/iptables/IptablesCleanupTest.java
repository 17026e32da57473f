package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class IptablesCleanupTest {
  @Test
  void deletesTheJumpsIntoProximasChainsByTheirSavedTextThenEveryProximaChain() {
    var save =
        Map.of(
            "nat",
            """
            *nat
            :PREROUTING ACCEPT [0:0]
            :PROXIMA-SERVICES - [0:0]
            :PROXIMA-SVC-A - [0:0]
            :KUBE-SERVICES - [0:0]
            -A PREROUTING -m comment --comment "proxima service portals" -j PROXIMA-SERVICES
            -A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
            -A PROXIMA-SERVICES -j PROXIMA-SVC-A
            COMMIT
            """,
            "mangle",
            """
            *mangle
            :PREROUTING ACCEPT [0:0]
            COMMIT
            """);

    assertThat(IptablesCleanup.buffer(save))
        .isEqualTo(
            """
            *nat
            :PROXIMA-SERVICES - [0:0]
            :PROXIMA-SVC-A - [0:0]
            -D PREROUTING -m comment --comment "proxima service portals" -j PROXIMA-SERVICES
            -X PROXIMA-SERVICES
            -X PROXIMA-SVC-A
            COMMIT
            """);
  }

  @Test
  void nothingOfProximasLeavesNothingToLoad() {
    assertThat(IptablesCleanup.buffer(Map.of("filter", "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n")))
        .isEmpty();
  }
}
