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
  void keepsAnotherToolsRuleWhoseCommentNamesAProximaChain() {
    var save =
        Map.of(
            "filter",
            """
            *filter
            :INPUT ACCEPT [0:0]
            :PROXIMA-FIREWALL - [0:0]
            -A INPUT -m comment --comment "was -j PROXIMA-FIREWALL, see \\"ticket 7\\"" -j ACCEPT
            -A INPUT -m comment --comment "-g PROXIMA-FIREWALL" -g OTHER
            -A INPUT -m comment --comment proxima -g PROXIMA-FIREWALL
            -A INPUT -p tcp -m tcp --dport 22
            COMMIT
            """);

    assertThat(IptablesCleanup.buffer(save))
        .isEqualTo(
            """
            *filter
            :PROXIMA-FIREWALL - [0:0]
            -D INPUT -m comment --comment proxima -g PROXIMA-FIREWALL
            -X PROXIMA-FIREWALL
            COMMIT
            """);
  }

  @Test
  void nothingOfProximasLeavesNothingToLoad() {
    assertThat(IptablesCleanup.buffer(Map.of("filter", "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n")))
        .isEmpty();
  }
}
