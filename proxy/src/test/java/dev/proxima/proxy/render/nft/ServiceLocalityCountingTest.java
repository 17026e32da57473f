package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-Service locality counting in the nftables table: a counted Service port's elements in the
 * four counting sets ({@code service-<locality>}, declared with {@code counter}), which the
 * locality chain looks the connection up in.
 */
class ServiceLocalityCountingTest {
  private static final FamilySettings CONFIG = RenderCases.v4();

  private static ServicePortName name(String service, String port) {
    return new ServicePortName(ObjectKey.parse(service), port, Protocol.TCP);
  }

  private static List<String> sets() {
    var sets = new java.util.ArrayList<String>();
    for (var locality : Locality.values()) {
      sets.add(NftNames.serviceSet(locality));
    }
    return sets;
  }

  @Nested
  class TheRenderer {
    private final Script script = RenderCases.countedServicePorts().parsed();

    @Test
    void declaresOneCountingSetPerLocalityWithPerElementCounters() {
      for (var set : sets()) {
        assertThat(script.lines())
            .anySatisfy(
                line ->
                    assertThat(line)
                        .startsWith(
                            "add set ip proxima "
                                + set
                                + " { type ipv4_addr . inet_proto . inet_service ; counter ;"));
      }
      assertThat(script.lines()).noneMatch(line -> line.contains("svc-"));
      // The node-wide counts are elements of one more such set, not named counters.
      assertThat(script.lines()).noneMatch(line -> line.startsWith("add counter"));
      assertThat(script.lines())
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith("add set ip proxima connection-counts { type mark ; counter ;"));
      assertThat(script.elements("connection-counts")).hasSize(5);
    }

    @Test
    void putsEachServiceAddressAndPortOfACountedPortInEverySet() {
      for (var set : sets()) {
        assertThat(script.elements(set))
            .containsExactlyInAnyOrder(
                "172.30.0.160 . tcp . 80",
                "192.0.2.160 . tcp . 80",
                "203.0.113.160 . tcp . 80",
                "172.30.0.161 . tcp . 80",
                "172.30.0.161 . tcp . 8080");
      }
    }

    @Test
    void looksTheDialledAddressUpInTheSetOfTheEndpointsLocalityBeforeCountingTheNode() {
      assertThat(script.rules("locality"))
          .containsExactly(
              "ip daddr @locality-node-endpoints" + DIALLED + " @service-node",
              "ip daddr @locality-node-endpoints meta mark & 0 | 0x00000001 @connection-counts"
                  + " return",
              "ip daddr @locality-zone-endpoints" + DIALLED + " @service-zone",
              "ip daddr @locality-zone-endpoints meta mark & 0 | 0x00000002 @connection-counts"
                  + " return",
              "ip daddr @locality-other-zone-endpoints" + DIALLED + " @service-other-zone",
              "ip daddr @locality-other-zone-endpoints meta mark & 0 | 0x00000003"
                  + " @connection-counts return",
              "ip daddr @locality-unknown-endpoints" + DIALLED + " @service-unknown",
              "ip daddr @locality-unknown-endpoints meta mark & 0 | 0x00000004 @connection-counts"
                  + " return");
      var ipv6 = RenderCases.countedServicePortsIpv6().parsed();
      assertThat(ipv6.rules("locality").get(0))
          .isEqualTo(
              "ip6 daddr @locality-node-endpoints meta l4proto { tcp, udp, sctp }"
                  + " ct original ip6 daddr . meta l4proto . ct original proto-dst @service-node");
      assertThat(ipv6.elements("service-other-zone"))
          .containsExactlyInAnyOrder("fd00:30::20 . tcp . 443", "2001:db8::20 . tcp . 443");
    }

    /** The connection's original destination: the address, protocol and port the client dialled. */
    private static final String DIALLED =
        " meta l4proto { tcp, udp, sctp } ct original ip daddr . meta l4proto"
            + " . ct original proto-dst";

    @Test
    void countsTwoPortsOfOneAddressThatShareAnEndpointPortEachOnItsOwn() {
      var assembler = new RulesetAssembler(CONFIG);
      var script = new Script(assembler.replaceAll(RenderCases.countedServicePorts().services()));

      assertThat(script.elements("service-zone"))
          .filteredOn(element -> element.startsWith("172.30.0.161 "))
          .containsExactlyInAnyOrder("172.30.0.161 . tcp . 80", "172.30.0.161 . tcp . 8080");
      assertThat(assembler.countingOwners())
          .containsEntry("172.30.0.161 . tcp . 80", name("ns/twin", "a"))
          .containsEntry("172.30.0.161 . tcp . 8080", name("ns/twin", "b"));
      assertThat(assembler.warnings()).noneMatch(w -> w.contains("counted as"));
    }

    @Test
    void givesAPortThatIsNotCountedNoElement() {
      for (var set : sets()) {
        assertThat(script.elements(set)).noneMatch(e -> e.startsWith("172.30.0.162 "));
      }
    }

    @Test
    void withCountingOffHasNoCounterNoLocalityChainAndNoPostroutingHook() {
      var off = RenderCases.localityCountingOff().parsed();

      assertThat(off.lines()).noneMatch(line -> line.startsWith("add counter"));
      assertThat(off.lines()).noneMatch(line -> line.contains("counter"));
      assertThat(off.chains()).doesNotContain("locality", "filter-postrouting");
      assertThat(off.sets()).doesNotContain("service-node", "locality-node-endpoints");
      assertThat(off.rules("reject-chain")).containsExactly("reject");
    }
  }

  @Nested
  class PartialSyncs {
    private final RulesetAssembler assembler = new RulesetAssembler(CONFIG);
    private final ServicePortRules web =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80, Locality.ZONE), remote("10.180.0.5", 80));
    private final ServicePortRules countedWeb =
        service("shop/web", "10.96.0.10", 80)
            .observeLocality()
            .cluster(remote("10.180.0.4", 80, Locality.ZONE), remote("10.180.0.5", 80));
    private final ServicePortRules api =
        service("shop/api", "10.96.0.11", 80)
            .observeLocality()
            .cluster(remote("10.180.1.5", 80, Locality.OTHER_ZONE));

    private Map<ServicePortName, ServicePortRules> change(ServicePortRules rules) {
      var map = new HashMap<ServicePortName, ServicePortRules>();
      map.put(rules.port().name(), rules);
      return map;
    }

    @Test
    void countingOnePortMoreLoadsOnlyItsElementsAndNoNamedCounter() {
      assembler.replaceAll(List.of(web, api));

      var delta = assembler.update(change(countedWeb)).orElseThrow().toString();

      var expected = new StringBuilder();
      for (var set : sets()) {
        expected.append("add element ip proxima ").append(set).append(" {\n");
        expected.append("\t10.96.0.10 . tcp . 80\n}\n");
      }
      assertThat(delta).isEqualTo(expected.toString());
      assertThat(assembler.countedPorts())
          .containsExactlyInAnyOrder(countedWeb.port().name(), api.port().name());
      assertThat(assembler.countingOwners())
          .containsOnly(
              Map.entry("10.96.0.10 . tcp . 80", countedWeb.port().name()),
              Map.entry("10.96.0.11 . tcp . 80", api.port().name()));
    }

    @Test
    void aPortThatStopsBeingCountedLosesItsElements() {
      assembler.replaceAll(List.of(countedWeb, api));

      var delta = assembler.update(change(web)).orElseThrow().toString();

      assertThat(delta).doesNotContain("10.96.0.11").doesNotContain("add ");
      assertThat(delta).doesNotContain("counter");
      for (var set : sets()) {
        assertThat(delta)
            .contains("delete element ip proxima " + set + " {\n\t10.96.0.10 . tcp . 80\n}\n");
      }
      assertThat(assembler.countedPorts()).containsExactly(api.port().name());
      assertThat(assembler.countingOwners()).containsOnlyKeys("10.96.0.11 . tcp . 80");
    }

    @Test
    void anEndpointChangeOfACountedPortTouchesNoCountingElement() {
      assembler.replaceAll(List.of(countedWeb));
      var moved =
          service("shop/web", "10.96.0.10", 80)
              .observeLocality()
              .cluster(remote("10.180.0.4", 80, Locality.ZONE), remote("10.180.0.6", 80));

      var delta = assembler.update(change(moved)).orElseThrow().toString();

      assertThat(delta).doesNotContain("service-node").doesNotContain("counter");
      assertThat(delta).contains("10.180.0.6");
    }

    @Test
    void theSecondPortSharingAKeyTakesItOverWhenTheFirstGoes() {
      // Two Services that claim one address and port: the first in name order counts both.
      var first =
          service("shop/a", "10.96.0.12", 8080)
              .observeLocality()
              .cluster(remote("10.180.0.4", 8080, Locality.ZONE));
      var second =
          service("shop/b", "10.96.0.12", 8080)
              .observeLocality()
              .cluster(remote("10.180.0.4", 8080, Locality.ZONE));
      assembler.replaceAll(List.of(second, first));
      assertThat(assembler.countingOwners())
          .containsEntry("10.96.0.12 . tcp . 8080", first.port().name());

      var gone = new HashMap<ServicePortName, ServicePortRules>();
      gone.put(first.port().name(), null);
      var delta = assembler.update(gone).orElseThrow().toString();

      assertThat(delta).doesNotContain("service-node");
      assertThat(assembler.countingOwners())
          .containsEntry("10.96.0.12 . tcp . 8080", second.port().name());
    }

    /** A counted port without endpoints: counted (its series at 0), with no counting key. */
    private ServicePortRules idle() {
      return service("shop/idle", "10.96.0.13", 80).observeLocality().rules(List.of(), null, false);
    }

    @Test
    void aFullSyncKeepsTheCountingSetsAndDeletesTheKeysNoPortWantsAfterTheSwitch() {
      var before =
          new KernelTable(
              Map.of("locality", new KernelTable.Chain(false, false)),
              Map.of("service-node", "set", "service-zone", "set", "service-locality", "map"),
              Set.of());
      var next = new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), 1);
      var build = String.join("", next.replaceAllInBatches(List.of(countedWeb), 15_000));

      var deleting =
          next.deletingEarlier(
              before,
              java.util.Set.of("10.96.0.10 . tcp . 80", "10.96.0.99 . tcp . 80"),
              Integer.MAX_VALUE);

      assertThat(build)
          .contains("add element ip proxima service-node {\n\t10.96.0.10 . tcp . 80\n}\n")
          .doesNotContain("10.96.0.99");
      assertThat(FakeNft.text(deleting.first()).lines())
          .containsExactly(
              "flush chain ip proxima locality",
              "delete map ip proxima service-locality",
              "add element ip proxima service-node { 10.96.0.99 . tcp . 80 }",
              "delete element ip proxima service-node { 10.96.0.99 . tcp . 80 }",
              "add element ip proxima service-zone { 10.96.0.99 . tcp . 80 }",
              "delete element ip proxima service-zone { 10.96.0.99 . tcp . 80 }");
      assertThat(FakeNft.text(deleting.chains()).lines())
          .containsExactly("delete chain ip proxima locality");
    }
  }

  @TempDir Path directory;

  /**
   * Counting turned on, off and on again for one port, endpoint changes, and a restart's full sync,
   * load into a real table: the kernel then holds the same counting sets as a fresh table of the
   * same state, and a connection counted before keeps its count through the partial syncs and the
   * full sync.
   */
  @RootTier
  @Test
  void partialAndFullSyncsLeaveTheKernelsCountingSetsAsAFreshTableHasThem() throws Exception {
    NftTool.assumeKernelTools();
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxo-" + suffix;
    var fresh = "pxp-" + suffix;
    var counted =
        service("shop/web", "10.96.0.10", 80)
            .observeLocality()
            .externalIps("192.0.2.10")
            .cluster(remote("10.180.0.4", 8080, Locality.ZONE), remote("10.180.0.5", 8080));
    var plain =
        service("shop/web", "10.96.0.10", 80)
            .externalIps("192.0.2.10")
            .cluster(remote("10.180.0.4", 8080, Locality.ZONE), remote("10.180.0.5", 8080));
    var other =
        service("shop/api", "10.96.0.11", 80)
            .observeLocality()
            .cluster(remote("10.180.1.5", 8080, Locality.OTHER_ZONE));
    var assembler = new RulesetAssembler(CONFIG);
    try {
      NftTool.load(directory, patched, assembler.replaceAll(List.of(plain, other)));
      for (var step : List.of(counted, plain, counted)) {
        var changes = new HashMap<ServicePortName, ServicePortRules>();
        changes.put(step.port().name(), step);
        NftTool.load(directory, patched, assembler.update(changes).orElseThrow().toString());
      }
      NftTool.load(
          directory, fresh, new RulesetAssembler(CONFIG).replaceAll(List.of(counted, other)));
      assertSameCounting(patched, fresh);
      assertThat(counting(fresh).get(Locality.OTHER_ZONE)).containsKey("10.96.0.11 . tcp . 80");

      // A restart with only shop/web counted: its full sync builds beside the table, keeping the
      // counting sets, and deletes shop/api's keys after the switch.
      var nft =
          new dev.proxima.proxy.kernel.Nft(
              List.of("ip", "netns", "exec", patched, "nft"), java.time.Duration.ofSeconds(60));
      var listed = nft.table("ip", "proxima").orElseThrow();
      var apiPlain = service("shop/api", "10.96.0.11", 80).cluster(remote("10.180.1.5", 8080));
      var keys = new java.util.HashSet<String>();
      counting(patched).values().forEach(elements -> keys.addAll(elements.keySet()));
      var restarted =
          new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), listed.freeGeneration());
      for (var batch : restarted.replaceAllInBatches(List.of(counted, apiPlain), 15_000)) {
        NftTool.load(directory, patched, batch);
      }
      var deleting = restarted.deletingEarlier(listed, keys, Integer.MAX_VALUE);
      NftTool.load(directory, patched, FakeNft.text(deleting.first()));
      NftTool.load(directory, patched, FakeNft.text(deleting.chains()));
      HostTools.run(directory, "ip", "netns", "del", fresh);
      NftTool.load(
          directory, fresh, new RulesetAssembler(CONFIG).replaceAll(List.of(counted, apiPlain)));
      assertSameCounting(patched, fresh);
      assertThat(counting(patched).get(Locality.NODE)).doesNotContainKey("10.96.0.11 . tcp . 80");
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  private void assertSameCounting(String patched, String fresh) {
    assertThat(counting(patched)).isEqualTo(counting(fresh));
    assertThat(counters(patched)).isEqualTo(counters(fresh));
  }

  /** The counting sets' elements, as the proxy reads them at a scrape. */
  private Map<Locality, Map<String, Long>> counting(String namespace) {
    var script = new StringBuilder();
    for (var set : sets()) {
      script.append("list set ip proxima ").append(set).append('\n');
    }
    var listing =
        HostTools.inNamespace(directory, namespace, script.toString(), List.of("nft", "-i"))
            .assertSucceeded()
            .stdout();
    return NftCounters.parseServiceSets(listing);
  }

  private TreeSet<String> counters(String namespace) {
    var listing =
        HostTools.inNamespace(
                directory,
                namespace,
                "list set ip proxima " + NftNames.COUNTERS + "\n",
                List.of("nft", "-i"))
            .assertSucceeded()
            .stdout();
    return new TreeSet<>(NftCounters.parse(listing).keySet());
  }
}
