package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.NftTracer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Zone spill-over in the nftables mode: one weighted draw in front of the port's two choices. */
class ZoneSpillRulesTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  private static final Endpoint ZONE_A1 = remote("10.180.0.4", 80);
  private static final Endpoint ZONE_A2 = remote("10.180.0.5", 80);
  private static final Endpoint ZONE_B1 = remote("10.180.1.4", 80);
  private static final Endpoint ZONE_B2 = remote("10.180.1.5", 80);
  private static final List<Endpoint> IN_ZONE = List.of(ZONE_A1, ZONE_A2);
  private static final List<Endpoint> ALL = List.of(ZONE_A1, ZONE_A2, ZONE_B1, ZONE_B2);

  private static ServicePortRules web(int keepPerMille) {
    var port = service("shop/web", "10.96.0.10", 80).nodePort(30080).build();
    return new ServicePortRules(port, IN_ZONE, null, true, new ZoneSpill(keepPerMille, ALL));
  }

  private static ServicePortRules stickyWeb(int keepPerMille) {
    var port = service("shop/web", "10.96.0.10", 80).sticky(Duration.ofSeconds(60)).build();
    return new ServicePortRules(port, IN_ZONE, null, true, new ZoneSpill(keepPerMille, ALL));
  }

  private static NftTracer.Packet fromAPod() {
    return new NftTracer.Packet("10.0.0.2", "10.96.0.10", "tcp", 80, "vp");
  }

  @Test
  void aSpillingPortWritesEachListOnceBehindOneDrawWhateverItsWaysIn() {
    var script = new RulesetAssembler(CONFIG).replaceAll(List.of(web(417)));

    assertThat(script)
        .contains(
            "numgen random mod 1000 < 417 meta l4proto tcp dnat ip to numgen random mod 2 map"
                + " { 0 : 10.180.0.4 . 80, 1 : 10.180.0.5 . 80 }")
        .contains(
            "meta l4proto tcp dnat ip to numgen random mod 4 map { 0 : 10.180.0.4 . 80,"
                + " 1 : 10.180.0.5 . 80, 2 : 10.180.1.4 . 80, 3 : 10.180.1.5 . 80 }")
        .doesNotContain("lb-2")
        .doesNotContain("lb-4");
    // The ClusterIP and the NodePort reach the same chain: the lists are not copied per way in.
    assertThat(script.split("numgen random mod 1000 <", -1)).hasSize(2);
  }

  @Test
  void aDrawBelowTheFractionStaysInZoneAndOneAboveGoesToAnyReadyEndpoint() {
    var nft = new FakeNft();
    nft.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(web(417))));
    var tracer = new NftTracer(nft, List.of("192.168.0.2"));

    var inZone = new HashSet<String>();
    var spread = new HashSet<String>();
    for (int draw = 0; draw < 1000; draw++) {
      var trace = tracer.trace(fromAPod(), draw);
      assertThat(trace.verdict()).isEqualTo(NftTracer.Verdict.DNAT);
      (draw < 417 ? inZone : spread).add(trace.endpoint());
    }

    assertThat(inZone).containsExactlyInAnyOrder("10.180.0.4:80", "10.180.0.5:80");
    assertThat(spread)
        .containsExactlyInAnyOrder(
            "10.180.0.4:80", "10.180.0.5:80", "10.180.1.4:80", "10.180.1.5:80");
  }

  @Test
  void withAffinityARememberedClientKeepsItsEndpointBeforeTheDraw() {
    var script = new RulesetAssembler(CONFIG).replaceAll(List.of(stickyWeb(250)));

    var sticky =
        script
            .lines()
            .filter(line -> line.startsWith("add rule ip proxima sticky-"))
            .map(line -> line.substring(line.indexOf(' ', "add rule ip proxima ".length()) + 1))
            .toList();
    // Every ready endpoint's timeout set is checked first, then the draw, then the spread choice.
    assertThat(sticky.stream().filter(rule -> rule.startsWith("ip saddr @affinity-"))).hasSize(4);
    assertThat(sticky.get(sticky.size() - 2))
        .startsWith("numgen random mod 1000 < 250 numgen random mod 2 vmap");
    assertThat(sticky.get(sticky.size() - 1)).startsWith("numgen random mod 4 vmap");
    var nft = new FakeNft();
    nft.apply(script);
    var tracer = new NftTracer(nft, List.of("192.168.0.2"));
    assertThat(tracer.trace(fromAPod(), 10).endpoint()).isIn("10.180.0.4:80", "10.180.0.5:80");
    assertThat(tracer.trace(fromAPod(), 902).endpoint()).isEqualTo("10.180.1.4:80");
  }

  @Test
  void aNewFractionLoadsAsAPartialSyncThatLeavesTheKernelAsAFreshTable() {
    var assembler = new RulesetAssembler(CONFIG);
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(web(417))));

    var delta = assembler.update(Map.of(web(500).port().name(), web(500)));

    assertThat(delta).as("a partial sync, not a full one").isPresent();
    assertThat(delta.get().toString())
        .contains("flush chain ip proxima endpoints-")
        .contains("numgen random mod 1000 < 500");
    kernel.apply(delta.get().toString());
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(web(500))));
    assertThat(kernel.objects()).isEqualTo(fresh.objects());
  }

  @Test
  void turningTheSpillOnAndOffAgainArePartialSyncs() {
    var assembler = new RulesetAssembler(CONFIG);
    var kernel = new FakeNft();
    var plain = new ServicePortRules(web(417).port(), IN_ZONE, null, true);
    kernel.apply(assembler.replaceAll(List.of(plain)));

    for (var next : List.of(web(417), plain)) {
      var delta = assembler.update(Map.of(next.port().name(), next));
      assertThat(delta).isPresent();
      kernel.apply(delta.get().toString());
      var fresh = new FakeNft();
      fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(next)));
      assertThat(withoutEmptySharedChains(kernel.objects()))
          .containsExactlyInAnyOrderEntriesOf(withoutEmptySharedChains(fresh.objects()));
    }
  }

  @Test
  void aPortThatKeepsEverythingInZoneRendersExactlyAsWithoutSpillOver() {
    var port = service("shop/web", "10.96.0.10", 80).build();
    var without = new ServicePortRules(port, IN_ZONE, null, true);
    var whole = new ServicePortRules(port, IN_ZONE, null, true, ZoneSpill.NONE);

    assertThat(new RulesetAssembler(CONFIG).replaceAll(List.of(whole)))
        .isEqualTo(new RulesetAssembler(CONFIG).replaceAll(List.of(without)));
  }

  /**
   * Shared lb-N chains and maps stay loaded, emptied, for the next port of that size; a port's own
   * chain it no longer uses is flushed at once and deleted later, with the other stale objects.
   */
  private static Map<String, String> withoutEmptySharedChains(Map<String, String> objects) {
    var kept = new java.util.TreeMap<>(objects);
    Set<String> empty = new HashSet<>();
    kept.forEach(
        (name, content) -> {
          if (name.matches("map [a-z-]*lb-\\d+") && content.endsWith("\n{}")) {
            empty.add(name);
            empty.add("chain " + name.substring("map ".length()));
          }
        });
    kept.forEach(
        (name, content) -> {
          if (name.startsWith("chain endpoints-") && content.endsWith("\n[]")) {
            empty.add(name);
          }
        });
    empty.forEach(kept::remove);
    return kept;
  }
}
