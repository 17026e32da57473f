package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IptablesAssemblerTest {
  private final IptablesAssembler assembler = new IptablesAssembler(IptablesCases.v4());

  private static Map<ServicePortName, ServicePortRules> change(ServicePortRules rules) {
    return Map.of(rules.port().name(), rules);
  }

  private static Map<ServicePortName, ServicePortRules> removal(ServicePortRules rules) {
    var removed = new HashMap<ServicePortName, ServicePortRules>();
    removed.put(rules.port().name(), null);
    return removed;
  }

  private static List<String> declared(String buffer) {
    return buffer
        .lines()
        .filter(l -> l.startsWith(":"))
        .map(l -> l.split(" ")[0].substring(1))
        .toList();
  }

  @Test
  void aPartialBufferRewritesTheTopLevelChainsAndOnlyTheChangedServicesOwnChains() {
    assembler.replaceAll(
        List.of(IptablesCases.twoEndpoints(), IptablesCases.threeEndpoints()), Map.of());
    var moved =
        service("ns4/svc4", "172.30.0.44", 80)
            .portName("p80")
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.9", 80));

    String buffer = assembler.update(change(moved)).orElseThrow();

    String svc3 = IptablesChains.svc(IptablesCases.threeEndpoints().port().name());
    String svc4 = IptablesChains.svc(moved.port().name());
    String goneEndpoint = IptablesChains.sep(moved.port().name(), remote("10.180.0.5", 80));
    assertThat(declared(buffer))
        .contains("PROXIMA-SERVICES", "PROXIMA-NODEPORTS", "PROXIMA-MARK-MASQ", svc4, goneEndpoint)
        .doesNotContain(svc3, IptablesChains.CANARY);
    assertThat(buffer)
        .as("the unchanged Service keeps its top-level rule")
        .contains("-j " + svc3)
        .contains("--to-destination 10.180.0.9:80")
        .contains("-X " + goneEndpoint + "\n")
        .doesNotContain("10.180.0.1:80");
    assertThat(buffer.indexOf("-X " + goneEndpoint))
        .as("deleted after every rule that referenced it is gone")
        .isGreaterThan(buffer.indexOf("--to-destination 10.180.0.9:80"));
  }

  @Test
  void aRemovedServiceHasEveryOwnChainDeletedAndItsTopLevelRulesDropped() {
    assembler.replaceAll(
        List.of(IptablesCases.twoEndpoints(), IptablesCases.threeEndpoints()), Map.of());
    var gone = IptablesCases.twoEndpoints();

    String buffer = assembler.update(removal(gone)).orElseThrow();

    String svc4 = IptablesChains.svc(gone.port().name());
    assertThat(buffer)
        .contains("-X " + svc4 + "\n")
        .contains("-X " + IptablesChains.sep(gone.port().name(), remote("10.180.0.4", 80)))
        .doesNotContain("-j " + svc4)
        .doesNotContain("172.30.0.44");
  }

  @Test
  void aChangeThatRendersTheSameRulesLoadsNothing() {
    assembler.replaceAll(List.of(IptablesCases.twoEndpoints()), Map.of());

    assertThat(assembler.update(change(IptablesCases.twoEndpoints()))).contains("");
    assertThat(assembler.update(Map.of())).contains("");
  }

  @Test
  void crossingTheLargeClusterThresholdNeedsAFullReplacement() {
    List<ServicePortRules> big = IptablesCases.manyEndpoints(1000);
    assembler.replaceAll(big, Map.of());
    var oneMore =
        service("other/svc", "172.30.9.9", 80).portName("p80").cluster(remote("10.181.0.1", 80));

    assertThat(assembler.update(change(oneMore))).isEmpty();
  }

  @Test
  void beforeAnyFullRenderOnlyAFullReplacementIsPossible() {
    assertThat(assembler.update(change(IptablesCases.twoEndpoints()))).isEmpty();
  }

  @Test
  void aFullBufferDeletesProximaChainsNoLongerUsedAndLeavesOthersAlone() {
    String buffer =
        assembler.replaceAll(
            List.of(IptablesCases.twoEndpoints()),
            Map.of(
                "nat",
                Set.of("PROXIMA-SVC-OLD0000000000000", "PROXIMA-SERVICES", "KUBE-SERVICES"),
                "mangle",
                Set.of(IptablesChains.CANARY, "PROXIMA-OLD-MANGLE")));

    assertThat(buffer)
        .startsWith("*mangle\n:PROXIMA-PROXY-CANARY - [0:0]\n:PROXIMA-OLD-MANGLE - [0:0]\n")
        .contains("-X PROXIMA-SVC-OLD0000000000000\n", "-X PROXIMA-OLD-MANGLE\n")
        .doesNotContain("-X PROXIMA-SERVICES", "KUBE-SERVICES", "-X PROXIMA-PROXY-CANARY");
  }

  @Test
  void countsTheRulesItOwnsAndTheRulesItWrotePerTable() {
    assembler.replaceAll(
        List.of(IptablesCases.twoEndpoints(), IptablesCases.threeEndpoints()), Map.of());
    int natOwned = assembler.ruleCounts().get("nat");
    assertThat(assembler.lastWritten().get("nat")).isEqualTo(natOwned);

    assembler.update(
        change(
            service("ns4/svc4", "172.30.0.44", 80)
                .portName("p80")
                .cluster(remote("10.180.0.4", 80))));

    assertThat(assembler.ruleCounts().get("nat"))
        .as("two rules of a SEP and one dispatch less")
        .isEqualTo(natOwned - 3);
    assertThat(assembler.lastWritten().get("nat")).isLessThan(assembler.ruleCounts().get("nat"));
  }

  @Test
  void aboveOneThousandEndpointsAPartialBufferEditsTheTopLevelChainsInsteadOfRewritingThem() {
    List<ServicePortRules> services = new java.util.ArrayList<>(IptablesCases.manyEndpoints(1001));
    services.add(IptablesCases.threeEndpoints());
    services.add(IptablesCases.twoEndpoints());
    assembler.replaceAll(services, Map.of());
    var moved =
        service("ns4/svc4", "172.30.0.44", 80)
            .portName("p80")
            .externalIps("192.0.2.4")
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.9", 80));

    String buffer = assembler.update(change(moved)).orElseThrow();

    String svc4 = IptablesChains.svc(moved.port().name());
    String svc3 = IptablesChains.svc(IptablesCases.threeEndpoints().port().name());
    String ext4 = IptablesChains.ext(moved.port().name());
    assertThat(declared(buffer)).doesNotContain("PROXIMA-SERVICES").contains(svc4, ext4);
    assertThat(buffer)
        .doesNotContain(svc3, "big/svc")
        .contains(
            "-I PROXIMA-SERVICES 1 -m comment --comment \"ns4/svc4:p80 external IP\" -m tcp -p tcp"
                + " -d 192.0.2.4 --dport 80 -j "
                + ext4)
        .doesNotContain("-D PROXIMA-SERVICES -m comment --comment \"ns4/svc4:p80 cluster IP\"")
        .doesNotContain("-I PROXIMA-SERVICES 1 -m comment --comment \"ns4/svc4:p80 cluster IP\"");

    String removal = assembler.update(removal(moved)).orElseThrow();
    assertThat(removal)
        .contains("-D PROXIMA-SERVICES -m comment --comment \"ns4/svc4:p80 cluster IP\"")
        .contains("-D PROXIMA-SERVICES -m comment --comment \"ns4/svc4:p80 external IP\"")
        .contains("-X " + svc4 + "\n")
        .doesNotContain("-I ");
    assertThat(removal.indexOf("-X " + svc4)).isGreaterThan(removal.indexOf("-D PROXIMA-SERVICES"));
  }
}
