package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.ServicePortRules;
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

    String svc3 =
        IptablesChains.SVC_PREFIX
            + IptablesChains.serviceHash(IptablesCases.threeEndpoints().port().name());
    String svc4 = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(moved.port().name());
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

    String svc4 = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(gone.port().name());
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
        .as("three rules of a SEP (its count, hairpin and DNAT) and one dispatch less")
        .isEqualTo(natOwned - 4);
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

    String svc4 = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(moved.port().name());
    String svc3 =
        IptablesChains.SVC_PREFIX
            + IptablesChains.serviceHash(IptablesCases.threeEndpoints().port().name());
    String ext4 = IptablesChains.EXT_PREFIX + IptablesChains.serviceHash(moved.port().name());
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

  private static final Map<String, Set<String>> COUNTERS_IN_KERNEL =
      Map.of(
          "nat", Set.copyOf(IptablesCounters.chains("nat")),
          "filter", Set.copyOf(IptablesCounters.chains("filter")));

  /**
   * A comment is a field of the rule, not text the assembler reads: a name that reads as rule
   * syntax and names Proxima's chains changes nothing in how the changes are edited into the
   * top-level chains, and each comment stays one sanitised argument.
   */
  @Test
  void aNameThatReadsAsRuleSyntaxIsEditedLikeAnyOtherAboveOneThousandEndpoints() {
    String hostile =
        "ns/x -A PROXIMA-SERVICES -j PROXIMA-SERVICES \"\n-A PROXIMA-NODEPORTS -j ACCEPT";
    List<ServicePortRules> services = new java.util.ArrayList<>(IptablesCases.manyEndpoints(1001));
    services.add(
        service(hostile, "172.30.2.1", 80).nodePort(30201).cluster(remote("10.182.0.1", 80)));
    services.add(service("ns/x", "172.30.2.2", 80).cluster(remote("10.182.0.2", 80)));
    var kernel = new FakeIptablesRestore();
    kernel.apply(assembler.replaceAll(services, Map.of()));
    var moved =
        service(hostile, "172.30.2.9", 80).nodePort(30201).cluster(remote("10.182.0.3", 80));

    String buffer = assembler.update(change(moved)).orElseThrow();
    kernel.apply(buffer);

    services.set(services.size() - 2, moved);
    var fresh = new FakeIptablesRestore();
    fresh.apply(new IptablesAssembler(IptablesCases.v4()).replaceAll(services, Map.of()));
    assertThat(inAnyOrder(kernel.listing()))
        .as("the same rules as a fresh load; edits put a changed port's rules first")
        .isEqualTo(inAnyOrder(fresh.listing()));
    assertThat(kernel.listing().get("nat PROXIMA-SERVICES"))
        .last()
        .isEqualTo(fresh.listing().get("nat PROXIMA-SERVICES").get(services.size()));
    assertThat(buffer.lines())
        .as("an edit, not a rewrite")
        .noneMatch(line -> line.startsWith(":PROXIMA-SERVICES"))
        .noneMatch(line -> line.startsWith("-A PROXIMA-NODEPORTS -j ACCEPT"))
        .anyMatch(line -> line.startsWith("-D PROXIMA-SERVICES -m comment --comment \"ns/x -A"))
        .anyMatch(line -> line.startsWith("-I PROXIMA-SERVICES 1 -m comment --comment \"ns/x -A"));
  }

  /** Each chain's rules sorted: the chains hold the same rules, in whatever order. */
  private static Map<String, List<String>> inAnyOrder(Map<String, List<String>> listing) {
    var sorted = new java.util.TreeMap<String, List<String>>();
    listing.forEach((chain, rules) -> sorted.put(chain, rules.stream().sorted().toList()));
    return sorted;
  }

  @Test
  void eachEndpointChainFirstJumpsToTheCounterOfItsEndpointsLocality() {
    var spread =
        service("shop/web", "172.30.0.50", 80)
            .portName("http")
            .cluster(
                local("10.180.0.1", 80),
                remote("10.180.0.2", 80, Locality.ZONE),
                remote("10.180.0.3", 80, Locality.OTHER_ZONE),
                remote("10.180.0.4", 80, Locality.UNKNOWN));

    String buffer = assembler.replaceAll(List.of(spread), COUNTERS_IN_KERNEL);

    var expected =
        Map.of(
            "10.180.0.1", Locality.NODE,
            "10.180.0.2", Locality.ZONE,
            "10.180.0.3", Locality.OTHER_ZONE,
            "10.180.0.4", Locality.UNKNOWN);
    expected.forEach(
        (ip, locality) -> {
          String sep = IptablesChains.sep(spread.port().name(), remote(ip, 80));
          assertThat(buffer.lines().filter(l -> l.startsWith("-A " + sep + " ")).findFirst())
              .as("%s is counted as %s before anything else", ip, locality.label())
              .contains("-A " + sep + " -j " + IptablesChains.counter(locality));
        });
  }

  @Test
  void aFullSyncCreatesTheCounterChainsOnlyWhereTheKernelLacksThem() {
    var services = List.of(IptablesCases.twoEndpoints(), IptablesCases.noEndpoints());

    String fresh = assembler.replaceAll(services, Map.of());
    assertThat(declared(fresh))
        .as("nothing known of the kernel: all five are created")
        .contains(
            "PROXIMA-COUNT-NODE",
            "PROXIMA-COUNT-ZONE",
            "PROXIMA-COUNT-OTHER-ZONE",
            "PROXIMA-COUNT-UNKNOWN",
            "PROXIMA-COUNT-NO-ENDPOINTS");
    assertThat(fresh)
        .contains("-A PROXIMA-COUNT-ZONE -j RETURN\n", "-A PROXIMA-COUNT-NO-ENDPOINTS -j RETURN\n");
    assertThat(fresh.indexOf(":PROXIMA-COUNT-NO-ENDPOINTS"))
        .as("in filter, where the refusals are")
        .isLessThan(fresh.indexOf("*nat"));

    String again = assembler.replaceAll(services, COUNTERS_IN_KERNEL);
    assertThat(again)
        .as("a full sync leaves counters the kernel has alone: declaring would zero them")
        .doesNotContain(":PROXIMA-COUNT-", "-A PROXIMA-COUNT-", "-X PROXIMA-COUNT-")
        .contains("-j PROXIMA-COUNT-UNKNOWN", "-j PROXIMA-COUNT-NO-ENDPOINTS");

    var onlyNat = Map.<String, Set<String>>of("nat", COUNTERS_IN_KERNEL.get("nat"));
    assertThat(declared(assembler.replaceAll(services, onlyNat)))
        .filteredOn(chain -> chain.startsWith("PROXIMA-COUNT-"))
        .containsExactly("PROXIMA-COUNT-NO-ENDPOINTS");

    String partial =
        assembler
            .update(
                change(
                    service("ns4/svc4", "172.30.0.44", 80)
                        .portName("p80")
                        .cluster(remote("10.180.0.9", 80))))
            .orElseThrow();
    assertThat(partial)
        .as("a partial sync never touches them")
        .doesNotContain(":PROXIMA-COUNT-", "-A PROXIMA-COUNT-", "-X PROXIMA-COUNT-")
        .contains("-j PROXIMA-COUNT-UNKNOWN");
  }

  @Test
  void inBatchesTheCountersAreCreatedBeforeTheFirstEndpointChainThatJumpsToThem() {
    var services =
        List.of(
            IptablesCases.twoEndpoints(),
            IptablesCases.threeEndpoints(),
            IptablesCases.noEndpoints());

    List<String> buffers =
        assembler.replaceAllInBatches(services, new FakeIptablesRestore().listingForSync(), 1);

    assertThat(buffers).hasSizeGreaterThan(3);
    assertThat(buffers.get(0))
        .contains(":PROXIMA-COUNT-ZONE - [0:0]", "-A PROXIMA-COUNT-ZONE -j RETURN")
        .as("the filter counter too, before the filter rules that jump to it")
        .contains(":PROXIMA-COUNT-NO-ENDPOINTS - [0:0]");
    assertThat(buffers.subList(1, buffers.size()))
        .noneMatch(buffer -> buffer.contains(":PROXIMA-COUNT-"));
  }

  private static ServicePortRules web() {
    return service("shop/web", "172.30.0.50", 80)
        .portName("http")
        .cluster(local("10.180.0.1", 80), remote("10.180.0.2", 80, Locality.ZONE));
  }

  private static List<String> serviceCounters(ServicePortRules rules) {
    return IptablesCounters.serviceChains(IptablesChains.serviceCounterStem(rules.port().name()));
  }

  @Test
  void withObserveLocalityOffNoCounterChainOrJumpIsWrittenAndTheKernelsAreDeleted() {
    var off = new IptablesAssembler(IptablesCases.v4().withCountsLocality(false));
    var services = List.of(IptablesCases.counted(web()), IptablesCases.noEndpoints());

    String fresh = off.replaceAll(services, Map.of());
    assertThat(fresh).doesNotContain("PROXIMA-COUNT-", "PROXIMA-SC-");

    String again = off.replaceAll(services, COUNTERS_IN_KERNEL);
    assertThat(again)
        .as("counter chains left from a counting run go, and nothing jumps to them")
        .contains("-X PROXIMA-COUNT-NODE\n", "-X PROXIMA-COUNT-NO-ENDPOINTS\n")
        .doesNotContain("-j PROXIMA-COUNT-", "-A PROXIMA-COUNT-", "PROXIMA-SC-");
  }

  @Test
  void onlyACountedPortsEndpointChainsAlsoJumpToItsOwnCounterOfTheEndpointsLocality() {
    var plain = IptablesCases.twoEndpoints();
    String buffer =
        assembler.replaceAll(List.of(IptablesCases.counted(web()), plain), COUNTERS_IN_KERNEL);

    String stem = IptablesChains.serviceCounterStem(web().port().name());
    String nodeSep = IptablesChains.sep(web().port().name(), local("10.180.0.1", 80));
    String zoneSep = IptablesChains.sep(web().port().name(), remote("10.180.0.2", 80));
    assertThat(buffer)
        .contains("-A " + nodeSep + " -j PROXIMA-COUNT-NODE\n")
        .contains("-A " + nodeSep + " -j " + stem + "NODE\n")
        .contains("-A " + zoneSep + " -j " + stem + "ZONE\n");
    assertThat(declared(buffer))
        .filteredOn(chain -> chain.startsWith("PROXIMA-SC-"))
        .as("the counted port's four counters, created because the kernel lacks them")
        .containsExactlyInAnyOrderElementsOf(serviceCounters(web()));
    assertThat(buffer.lines().filter(l -> l.contains("PROXIMA-SC-") && l.startsWith("-A ")))
        .as("the uncounted port's endpoint chains jump to the node counters only")
        .noneMatch(l -> l.contains(IptablesChains.serviceCounterStem(plain.port().name())))
        .isNotEmpty();
    assertThat(serviceCounters(web())).allMatch(c -> c.length() <= IptablesChains.MAX_LENGTH);
    assertThat(assembler.countedPorts()).containsExactly(Map.entry(stem, web().port().name()));
  }

  @Test
  void aCountedPortsCounterChainsAreDeclaredOnlyWhenMissingAndDeletedWhenItStopsBeingCounted() {
    var plain = IptablesCases.twoEndpoints();
    var inKernel = new HashMap<String, Set<String>>();
    inKernel.put("filter", COUNTERS_IN_KERNEL.get("filter"));
    var nat = new java.util.HashSet<>(COUNTERS_IN_KERNEL.get("nat"));
    nat.addAll(serviceCounters(web()));
    inKernel.put("nat", nat);

    String full = assembler.replaceAll(List.of(IptablesCases.counted(web()), plain), inKernel);
    assertThat(full)
        .as("the kernel has them: declaring would zero their counts")
        .doesNotContain(":PROXIMA-SC-", "-A PROXIMA-SC-", "-X PROXIMA-SC-")
        .contains("-j PROXIMA-SC-");

    String moved =
        assembler
            .update(
                change(
                    IptablesCases.counted(
                        service("shop/web", "172.30.0.50", 80)
                            .portName("http")
                            .cluster(local("10.180.0.1", 80), remote("10.180.0.3", 80)))))
            .orElseThrow();
    assertThat(moved)
        .as("a partial sync of a port still counted leaves its counters alone")
        .doesNotContain(":PROXIMA-SC-", "-A PROXIMA-SC-", "-X PROXIMA-SC-")
        .contains("-j PROXIMA-SC-");

    String uncounted = assembler.update(change(web())).orElseThrow();
    for (String chain : serviceCounters(web())) {
      assertThat(uncounted).contains(":" + chain + " - [0:0]\n", "-X " + chain + "\n");
    }
    assertThat(uncounted).doesNotContain("-j PROXIMA-SC-", "-A PROXIMA-SC-");
    assertThat(assembler.countedPorts()).isEmpty();

    String countedAgain = assembler.update(change(IptablesCases.counted(web()))).orElseThrow();
    for (String chain : serviceCounters(web())) {
      assertThat(countedAgain)
          .as("created anew once counted again")
          .contains(":" + chain + " - [0:0]\n", "-A " + chain + " -j RETURN\n")
          .doesNotContain("-X " + chain);
    }

    String removed = assembler.update(removal(web())).orElseThrow();
    assertThat(removed).contains("-X " + serviceCounters(web()).get(0) + "\n");

    var afterRemoval = new HashMap<String, Set<String>>(inKernel);
    assertThat(assembler.replaceAll(List.of(plain), afterRemoval))
        .as("a full sync deletes counters of ports no longer counted")
        .contains("-X " + serviceCounters(web()).get(3) + "\n");
  }

  @Test
  void aCountedPortWithoutEndpointsStillGetsItsCountersWhenItBecomesCounted() {
    var empty = IptablesCases.noEndpoints();
    assembler.replaceAll(List.of(empty), COUNTERS_IN_KERNEL);

    String buffer = assembler.update(change(IptablesCases.counted(empty))).orElseThrow();

    assertThat(declared(buffer)).containsAll(serviceCounters(empty));
  }

  @Test
  void aboveTheLargeThresholdAPartialSyncStillCreatesAndDeletesPortCounters() {
    List<ServicePortRules> services = new java.util.ArrayList<>(IptablesCases.manyEndpoints(1001));
    services.add(web());
    assembler.replaceAll(services, COUNTERS_IN_KERNEL);

    String on = assembler.update(change(IptablesCases.counted(web()))).orElseThrow();
    assertThat(on).contains("-A " + serviceCounters(web()).get(0) + " -j RETURN\n");
    String off = assembler.update(change(web())).orElseThrow();
    assertThat(off).contains("-X " + serviceCounters(web()).get(0) + "\n");
  }
}
