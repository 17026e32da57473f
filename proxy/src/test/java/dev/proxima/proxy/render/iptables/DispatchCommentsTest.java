package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DispatchCommentsTest {
  @Test
  void everyCommentTheRendererWritesInADispatchChainReadsBackAsItsPortsName() {
    var ports =
        List.of(
            IptablesCases.externalLocalLoadBalancer(),
            IptablesCases.externalNoEndpoints(),
            IptablesCases.externalLocalNoLocalEndpoints(),
            IptablesCases.noEndpoints(),
            IptablesCases.nodePort(),
            IptablesCases.twoEndpoints());
    var kernel = new FakeIptablesRestore();
    kernel.apply(new IptablesAssembler(IptablesCases.v4()).replaceAll(ports, Map.of()));
    var names = ports.stream().map(p -> p.port().name().toString()).toList();

    int read = 0;
    for (var table : kernel.listingForSync().dispatchRules().entrySet()) {
      for (var rule : table.getValue()) {
        String name = DispatchComments.name(table.getKey(), rule.chain(), rule.comment());
        if (rule.comment() != null && rule.comment().startsWith("proxima ")) {
          assertThat(name).as(rule.toString()).isNull();
        } else {
          assertThat(names).as(rule.toString()).contains(name);
          read++;
        }
      }
    }
    assertThat(read).as("rules read back").isGreaterThan(10);
  }

  @Test
  void aNameIsReadWithTheEndingItsChainGivesAndNoOther() {
    assertThat(DispatchComments.name("nat", "PROXIMA-SERVICES", "ns/a b cluster IP"))
        .isEqualTo("ns/a b");
    assertThat(DispatchComments.name("nat", "PROXIMA-NODEPORTS", "ns/a b cluster IP"))
        .as("a NodePort rule's comment is the name alone")
        .isEqualTo("ns/a b cluster IP");
    assertThat(DispatchComments.name("nat", "PROXIMA-SERVICES", "ns/a has no endpoints"))
        .as("not an ending of nat's rules")
        .isNull();
    assertThat(
            DispatchComments.name(
                "filter",
                "PROXIMA-FIREWALL",
                "ns/a traffic not accepted by x traffic not accepted by PROXIMA-FW-ABC"))
        .isEqualTo("ns/a traffic not accepted by x");
    assertThat(DispatchComments.name("filter", "PROXIMA-FIREWALL", "ns/a traffic not accepted"))
        .isNull();
    assertThat(DispatchComments.name("filter", "PROXIMA-NODEPORTS", null)).isNull();
  }
}
