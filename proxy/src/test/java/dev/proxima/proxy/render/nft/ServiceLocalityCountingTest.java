package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-Service locality counting in the nftables table: a counted Service port's named counters and
 * the {@code service-locality} elements that lead its connections to them.
 */
class ServiceLocalityCountingTest {
  private static final FamilySettings CONFIG = RenderCases.v4();

  private static ServicePortName name(String service, String port) {
    return new ServicePortName(ObjectKey.parse(service), port, Protocol.TCP);
  }

  private static String counter(String service, String port, Locality locality) {
    return NftNames.serviceCounter(name(service, port), locality);
  }

  @Nested
  class TheRenderer {
    private final Script script = RenderCases.countedServicePorts().parsed();

    @Test
    void givesACountedPortOneCounterPerLocality() {
      for (var locality : Locality.values()) {
        assertThat(script.lines())
            .contains("add counter ip proxima " + counter("ns/web", "", locality));
      }
      assertThat(counter("ns/web", "", Locality.OTHER_ZONE)).matches("svc-[a-z2-7]{16}-other-zone");
    }

    @Test
    void leadsEachServiceAddressAndEndpointToTheCounterOfTheEndpointsLocality() {
      var web =
          script.elements("service-locality").stream()
              .filter(
                  element ->
                      element.contains(counter("ns/web", "", Locality.NODE).replace("-node", "-")))
              .toList();

      var expected = new java.util.ArrayList<String>();
      for (var address : List.of("172.30.0.160", "192.0.2.160", "203.0.113.160")) {
        expected.add(element(address, "10.1.0.1", Locality.NODE));
        expected.add(element(address, "10.2.0.1", Locality.ZONE));
        expected.add(element(address, "10.3.0.1", Locality.OTHER_ZONE));
      }
      assertThat(web).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String element(String address, String endpoint, Locality locality) {
      return address
          + " . "
          + endpoint
          + " . tcp . 8080 : \""
          + counter("ns/web", "", locality)
          + "\"";
    }

    @Test
    void looksTheDialledAddressAndTheEndpointUpBeforeTheNodeWideCounters() {
      assertThat(script.rules("locality").get(0))
          .isEqualTo(
              "counter name ct original ip daddr . ip daddr . meta l4proto . th dport map"
                  + " @service-locality");
      assertThat(RenderCases.countedServicePortsIpv6().parsed().rules("locality").get(0))
          .isEqualTo(
              "counter name ct original ip6 daddr . ip6 daddr . meta l4proto . th dport map"
                  + " @service-locality");
    }

    @Test
    void countsTwoPortsOfOneAddressThatShareAnEndpointPortAsTheFirst() {
      var rendering =
          NftRenderer.renderWithWarnings(CONFIG, RenderCases.countedServicePorts().services());
      var twin =
          new Script(rendering.script())
              .elements("service-locality").stream()
                  .filter(element -> element.startsWith("172.30.0.161 "))
                  .toList();

      assertThat(twin)
          .containsExactly(
              "172.30.0.161 . 10.2.0.2 . tcp . 8080 : \""
                  + counter("ns/twin", "a", Locality.ZONE)
                  + "\"");
      assertThat(rendering.warnings())
          .anySatisfy(w -> assertThat(w).contains("ns/twin:b").contains("ns/twin:a"));
    }

    @Test
    void givesAPortThatIsNotCountedNoCounterAndNoElement() {
      var stem = NftNames.serviceCounterStem(name("ns/plain", ""));

      assertThat(script.lines()).noneMatch(line -> line.contains(stem));
      assertThat(script.elements("service-locality")).noneMatch(e -> e.startsWith("172.30.0.162 "));
    }

    @Test
    void withCountingOffHasNoCounterNoLocalityChainAndNoPostroutingHook() {
      var off = RenderCases.localityCountingOff().parsed();

      assertThat(off.lines()).noneMatch(line -> line.startsWith("add counter"));
      assertThat(off.lines()).noneMatch(line -> line.contains("counter name"));
      assertThat(off.chains()).doesNotContain("locality", "filter-postrouting");
      assertThat(off.sets()).doesNotContain("service-locality", "locality-node-endpoints");
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
    void countingOnePortMoreLoadsOnlyItsCountersAndElements() {
      assembler.replaceAll(List.of(web, api));

      var delta = assembler.update(change(countedWeb)).orElseThrow();

      var stem = NftNames.serviceCounterStem(countedWeb.port().name());
      assertThat(delta)
          .isEqualTo(
              "add counter ip proxima "
                  + stem
                  + "node\n"
                  + "add counter ip proxima "
                  + stem
                  + "zone\n"
                  + "add counter ip proxima "
                  + stem
                  + "other-zone\n"
                  + "add counter ip proxima "
                  + stem
                  + "unknown\n"
                  + "add element ip proxima service-locality {\n"
                  + "\t10.96.0.10 . 10.180.0.4 . tcp . 80 : \""
                  + stem
                  + "zone\",\n"
                  + "\t10.96.0.10 . 10.180.0.5 . tcp . 80 : \""
                  + stem
                  + "unknown\"\n"
                  + "}\n");
      assertThat(assembler.countedPorts())
          .containsOnlyKeys(stem, NftNames.serviceCounterStem(api.port().name()));
    }

    @Test
    void aPortThatStopsBeingCountedLosesItsElementsFirstThenItsCounters() {
      assembler.replaceAll(List.of(countedWeb, api));

      var delta = assembler.update(change(web)).orElseThrow();

      var stem = NftNames.serviceCounterStem(countedWeb.port().name());
      assertThat(delta).doesNotContain("10.96.0.11").doesNotContain("add ");
      assertThat(delta.indexOf("delete element ip proxima service-locality"))
          .isNotNegative()
          .isLessThan(delta.indexOf("delete counter ip proxima " + stem + "node"));
      assertThat(delta).contains("delete counter ip proxima " + stem + "unknown\n");
      assertThat(assembler.countedPorts())
          .containsOnlyKeys(NftNames.serviceCounterStem(api.port().name()));
    }

    @Test
    void anEndpointChangeOfACountedPortKeepsItsCounters() {
      assembler.replaceAll(List.of(countedWeb));
      var moved =
          service("shop/web", "10.96.0.10", 80)
              .observeLocality()
              .cluster(remote("10.180.0.4", 80, Locality.ZONE), remote("10.180.0.6", 80));

      var delta = assembler.update(change(moved)).orElseThrow();

      assertThat(delta).doesNotContain("counter ip proxima");
      assertThat(delta)
          .contains(
              "delete element ip proxima service-locality {\n\t10.96.0.10 . 10.180.0.5 . tcp . 80\n}")
          .contains("10.96.0.10 . 10.180.0.6 . tcp . 80 : \"");
    }

    @Test
    void aFullSyncInPlaceDeletesTheCountersNoPortUsesAfterTheMapAndKeepsTheOthers() {
      var stale = "svc-aaaaaaaaaaaaaaaa-node";
      var kept = counter("shop/web", "", Locality.NODE);
      var kernel =
          new KernelTable(
              Map.of("locality", new KernelTable.Chain(false, false)),
              Map.of("service-locality", "map"),
              java.util.Set.of(stale, kept, "locality-node"));

      var script = assembler.replaceAll(List.of(countedWeb), kernel);

      assertThat(script.indexOf("delete counter ip proxima " + stale))
          .isGreaterThan(script.indexOf("delete map ip proxima service-locality"));
      assertThat(script).doesNotContain("delete counter ip proxima " + kept);
      assertThat(script).doesNotContain("delete counter ip proxima locality-node");
      assertThat(script).contains("add counter ip proxima " + kept + "\n");
    }
  }

  @TempDir Path directory;

  /**
   * Counting turned on, off and on again for one port, and a full sync in place, load into a real
   * table: the kernel then holds the same counters and {@code service-locality} elements as a fresh
   * table of the same state.
   */
  @Test
  void partialAndInPlaceSyncsLeaveTheKernelsCountersAsAFreshTableHasThem() throws Exception {
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
        NftTool.load(directory, patched, assembler.update(changes).orElseThrow());
      }
      NftTool.load(
          directory, fresh, new RulesetAssembler(CONFIG).replaceAll(List.of(counted, other)));
      assertSameCounting(patched, fresh);
      assertThat(counters(fresh)).contains(counter("shop/web", "", Locality.OTHER_ZONE));

      // A restart with only shop/web counted: shop/api's counters go in the in-place full sync.
      var listing =
          HostTools.inNamespace(
                  directory, patched, null, List.of("nft", "-t", "list", "table", "ip", "proxima"))
              .assertSucceeded()
              .stdout();
      var apiPlain = service("shop/api", "10.96.0.11", 80).cluster(remote("10.180.1.5", 8080));
      NftTool.load(
          directory,
          patched,
          new RulesetAssembler(CONFIG)
              .replaceAll(List.of(counted, apiPlain), KernelTable.parse(listing)));
      HostTools.run(directory, "ip", "netns", "del", fresh);
      NftTool.load(
          directory, fresh, new RulesetAssembler(CONFIG).replaceAll(List.of(counted, apiPlain)));
      assertSameCounting(patched, fresh);
      assertThat(counters(patched))
          .noneMatch(name -> name.startsWith(NftNames.serviceCounterStem(name("shop/api", ""))));
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  private void assertSameCounting(String patched, String fresh) {
    assertThat(counters(patched)).isEqualTo(counters(fresh));
    assertThat(NftTool.objects(directory, patched).get("map service-locality"))
        .isEqualTo(NftTool.objects(directory, fresh).get("map service-locality"));
  }

  private TreeSet<String> counters(String namespace) {
    var listing =
        HostTools.inNamespace(
                directory,
                namespace,
                null,
                List.of("nft", "list", "counters", "table", "ip", "proxima"))
            .assertSucceeded()
            .stdout();
    return new TreeSet<>(NftCounters.parse(listing).keySet());
  }
}
