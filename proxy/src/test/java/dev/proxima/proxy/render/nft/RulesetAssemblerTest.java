package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesetAssemblerTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  @TempDir Path directory;

  private final RulesetAssembler assembler = new RulesetAssembler(CONFIG);

  private static final ServicePortRules WEB =
      service("shop/web", "10.96.0.10", 80)
          .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80));
  private static final ServicePortRules API =
      service("shop/api", "10.96.0.11", 80)
          .cluster(remote("10.180.0.4", 80), remote("10.180.1.5", 80));

  private static Map<ServicePortName, ServicePortRules> change(ServicePortRules... rules) {
    var map = new HashMap<ServicePortName, ServicePortRules>();
    for (var rule : rules) {
      map.put(rule.port().name(), rule);
    }
    return map;
  }

  @Test
  void anElementIsDiffedByItsKeyWhateverItsCommentHolds() {
    // A name no API server would accept, as an offline state file may hold: text that reads like a
    // value and a second comment. The key comes from the element's field, not from its text.
    var name = "evil\" : goto lb-9 comment \"x/web";
    var before = service(name, "10.96.0.12", 80).cluster(remote("10.180.2.4", 80));
    var after =
        service(name, "10.96.0.12", 80).cluster(remote("10.180.2.4", 80), remote("10.180.2.5", 80));
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(WEB, before)));

    var delta = assembler.update(change(after)).orElseThrow().toString();
    kernel.apply(delta);

    assertThat(delta)
        .contains("delete element ip proxima service-ips {\n\t10.96.0.12 . tcp . 80\n}\n")
        .contains(
            "\t10.96.0.12 . tcp . 80 comment \"evil__:_goto_lb-9_comment__x/web\" : goto lb-2\n")
        .doesNotContain(" goto lb-9");
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(WEB, after)));
    // The shared lb-1 chain and its map stay loaded for the next port with one endpoint, empty.
    var loaded = new TreeMap<>(kernel.objects());
    assertThat(loaded.remove("chain lb-1")).isNotNull();
    assertThat(loaded.remove("map lb-1")).endsWith("\n{}");
    assertThat(loaded).isEqualTo(fresh.objects());
  }

  @Test
  void serviceCidrsAreInTheFullScriptOutermostOnlyAndOfThisFamily() {
    assembler.serviceCidrs(List.of("10.96.0.0/12", "10.96.5.0/24", "fd00:10:96::/112", "bogus"));

    var script = assembler.replaceAll(List.of(WEB));

    assertThat(script)
        .contains("add element ip proxima service-cidrs {\n\t10.96.0.0/12\n}")
        .doesNotContain("10.96.5.0/24")
        .doesNotContain("fd00:10:96::");
  }

  @Test
  void aServiceCidrChangeLoadsOnlyTheRangesThatCameOrWent() {
    assembler.serviceCidrs(List.of("10.96.0.0/16", "10.100.0.0/16"));
    assembler.replaceAll(List.of(WEB, API));

    var delta = assembler.serviceCidrs(List.of("10.100.0.0/16", "10.101.0.0/16")).toString();

    assertThat(delta)
        .isEqualTo(
            "delete element ip proxima service-cidrs {\n\t10.96.0.0/16\n}\n"
                + "add element ip proxima service-cidrs {\n\t10.101.0.0/16\n}\n");
    assertThat(assembler.serviceCidrs(List.of("10.100.0.0/16", "10.101.0.0/16")).isEmpty())
        .isTrue();
    assertThat(assembler.fullScript()).contains("10.101.0.0/16").doesNotContain("10.96.0.0/16");
  }

  @Test
  void anUnchangedPortProducesAnEmptyTransaction() {
    assembler.replaceAll(List.of(WEB, API));

    assertThat(assembler.update(change(WEB)).map(Object::toString)).hasValue("");
  }

  @Test
  void anEndpointChangeTouchesOnlyThatPortsElements() {
    assembler.replaceAll(List.of(WEB, API));
    var moved =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.6", 80));

    var delta = assembler.update(change(moved)).orElseThrow().toString();

    assertThat(delta)
        .contains("10.96.0.10 . tcp . 80 . 1 : 10.180.0.6 . 80")
        .contains("delete element ip proxima lb-2 {\n\t10.96.0.10 . tcp . 80 . 1\n}")
        .doesNotContain("10.96.0.11")
        .doesNotContain("add chain");
  }

  @Test
  void aSharedHairpinStaysUntilItsLastUserGoes() {
    assembler.replaceAll(List.of(WEB, API));
    var removeWeb = new HashMap<ServicePortName, ServicePortRules>();
    removeWeb.put(WEB.port().name(), null);

    var delta = assembler.update(removeWeb).orElseThrow().toString();

    assertThat(delta).contains("10.180.0.5 . 10.180.0.5").doesNotContain("10.180.0.4 . 10.180.0.4");
  }

  @Test
  void theEarlierPortKeepsAKeyTwoPortsClaim() {
    var clash = service("shop/zzz", "10.96.0.10", 80).cluster(remote("10.180.9.9", 80));

    var script = assembler.replaceAll(List.of(clash, WEB));

    assertThat(script)
        .contains("10.96.0.10 . tcp . 80 . 0 : 10.180.0.4 . 80")
        .doesNotContain("10.180.9.9 . 80");
    assertThat(assembler.warnings())
        .anySatisfy(w -> assertThat(w).contains("shop/zzz").contains("shop/web"));
  }

  @Test
  void aPortThatLostAKeyLeavesItWithTheHolderWhenItGoes() {
    var clash = service("shop/zzz", "10.96.0.10", 80).cluster(remote("10.180.9.9", 80));
    assembler.replaceAll(List.of(clash, WEB));
    var removeClash = new HashMap<ServicePortName, ServicePortRules>();
    removeClash.put(clash.port().name(), null);

    var delta = assembler.update(removeClash).orElseThrow().toString();

    assertThat(delta)
        .isEqualTo(
            "delete element ip proxima hairpins {\n\t10.180.9.9 . 10.180.9.9\n}\n"
                + "delete element ip proxima locality-unknown-endpoints {\n\t10.180.9.9\n}\n");
    assertThat(assembler.fullScript())
        .contains("10.96.0.10 . tcp . 80 . 0 : 10.180.0.4 . 80")
        .doesNotContain("10.180.9.9");
  }

  @Test
  void aNewEndpointCountLoadsAsAPartialSyncWithItsChainAndMap() {
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.of(WEB)));
    var three =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80), remote("10.180.0.6", 80));

    var delta = assembler.update(change(three)).orElseThrow().toString();
    kernel.apply(delta);

    // The map first, then the chain whose rule looks it up: nft types that rule only so.
    assertThat(delta)
        .startsWith(
            "add map ip proxima lb-3 { typeof ip daddr . meta l4proto . th dport"
                + " . numgen random mod 1 : ip daddr . th dport ;")
        .contains("add chain ip proxima lb-3\n")
        .contains("map @lb-3\n")
        .contains("delete element ip proxima lb-2 {\n\t10.96.0.10 . tcp . 80 . 0,\n")
        .contains("10.96.0.10 . tcp . 80 . 2 : 10.180.0.6 . 80");
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(three)));
    var loaded = new TreeMap<>(kernel.objects());
    assertThat(loaded.remove("chain lb-2")).isNotNull();
    assertThat(loaded.remove("map lb-2")).endsWith("\n{}");
    assertThat(loaded).isEqualTo(fresh.objects());
  }

  @RootTier
  @Test
  void updatesLeaveTheKernelEqualToAFreshTableOfTheNewState() throws Exception {
    requireKernelTools();
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxu-" + suffix;
    var fresh = "pxv-" + suffix;
    try {
      load(patched, assembler.replaceAll(mixed()));
      var changes = new HashMap<ServicePortName, ServicePortRules>();
      var web =
          service("shop/web", "10.96.0.10", 80)
              .cluster(remote("10.180.0.4", 80), remote("10.180.0.7", 80));
      var sticky =
          service("shop/sticky", "10.96.0.12", 80)
              .sticky(Duration.ofSeconds(60))
              .cluster(remote("10.180.2.4", 80));
      var dns = service("shop/dns", "10.96.0.14", 53).protocol(Protocol.UDP).cluster();
      changes.put(web.port().name(), web);
      changes.put(sticky.port().name(), sticky);
      changes.put(dns.port().name(), dns);
      changes.put(API.port().name(), null);
      load(patched, assembler.update(changes).orElseThrow().toString());

      var expected =
          new RulesetAssembler(CONFIG).replaceAll(List.of(web, sticky, dns, lb(), empty()));
      load(fresh, expected);
      var patchedObjects = NftTool.objects(directory, patched);
      var freshObjects = NftTool.objects(directory, fresh);
      freshObjects.forEach(
          (object, content) ->
              assertThat(patchedObjects.get(object)).as(object).isEqualTo(content));
      assertThat(freshObjects.get("map lb-2"))
          .contains("10.96.0.10 . tcp . 80 . 1 : 10.180.0.7 . 80");
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  /**
   * A full sync over a table that holds another state, as after a restart or an hour of partial
   * syncs: once it has switched and deleted what was there, the kernel holds what a fresh table of
   * the new state holds, and the affinity set the new state still uses keeps the clients it
   * remembers.
   */
  @RootTier
  @Test
  void aFullSyncBesideAnOlderTableEqualsAFreshTableAndKeepsTheClientsAnAffinitySetRemembers()
      throws Exception {
    requireKernelTools();
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxk-" + suffix;
    var fresh = "pxl-" + suffix;
    try {
      load(patched, assembler.replaceAll(mixed()));
      var affinitySets =
          NftTool.objects(directory, patched).keySet().stream()
              .filter(object -> object.startsWith("set affinity-"))
              .toList();
      assertThat(affinitySets).hasSize(2);
      for (var set : affinitySets) {
        load(patched, "add element ip proxima " + set.substring(4) + " { 10.1.2.3 }\n");
      }
      // shop/sticky loses one endpoint and shop/api goes: one affinity set is still wanted.
      var sticky =
          service("shop/sticky", "10.96.0.12", 80)
              .sticky(Duration.ofSeconds(60))
              .cluster(remote("10.180.2.4", 80));
      var next = List.of(WEB, sticky, lb(), empty());
      var nft =
          new dev.proxima.proxy.kernel.Nft(
              List.of("ip", "netns", "exec", patched, "nft"), Duration.ofSeconds(60));
      var listed = nft.table("ip", "proxima").orElseThrow();
      var restarted = new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), 1);
      assertThat(listed.freeGeneration()).isEqualTo(1);
      for (var batch : restarted.replaceAllInBatches(next, 15_000)) {
        load(patched, batch);
      }
      var deleting = restarted.deletingEarlier(listed, java.util.Set.of(), Integer.MAX_VALUE);
      load(patched, FakeNft.text(deleting.first()));
      load(patched, FakeNft.text(deleting.chains()));
      load(fresh, new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), 1).replaceAll(next));

      var patchedObjects = NftTool.objects(directory, patched);
      var freshObjects = NftTool.objects(directory, fresh);
      assertThat(patchedObjects.keySet()).isEqualTo(freshObjects.keySet());
      freshObjects.forEach(
          (object, content) -> {
            if (object.startsWith("set affinity-")) {
              assertThat(patchedObjects.get(object))
                  .as(object)
                  .anyMatch(line -> line.startsWith("10.1.2.3 "));
            } else {
              assertThat(patchedObjects.get(object)).as(object).isEqualTo(content);
            }
          });
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  /**
   * Endpoints shared between Services come and go in a fixed pseudo-random order, as in an endpoint
   * churn: after every step the kernel, patched by the deltas, must hold exactly what a fresh table
   * of the state holds, so a leaked or lost element shows at the step that made it.
   */
  @RootTier
  @Test
  void sharedEndpointsChurningLeaveTheKernelEqualToAFreshTableAfterEveryStep() throws Exception {
    requireKernelTools();
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxc-" + suffix;
    var fresh = "pxf-" + suffix;
    var pool = List.of("10.180.0.1", "10.180.0.2", "10.180.0.3", "10.180.0.4", "10.180.0.5");
    var random = new Random(20261123L);
    var current = new TreeMap<ServicePortName, ServicePortRules>();
    try {
      load(patched, assembler.replaceAll(List.of()));
      for (int step = 0; step < 40; step++) {
        int service = random.nextInt(4);
        var port = service("churn/s" + service, "10.96.1." + service, 80);
        ServicePortRules rules = null;
        if (random.nextInt(5) > 0) {
          var endpoints = new ArrayList<>(pool);
          Collections.shuffle(endpoints, random);
          rules =
              port.cluster(
                  endpoints.subList(0, 1 + random.nextInt(2)).stream()
                      .map(ip -> remote(ip, 8080))
                      .toArray(Endpoint[]::new));
        }
        var name = port.build().name();
        var changes = new HashMap<ServicePortName, ServicePortRules>();
        changes.put(name, rules);
        if (rules == null) {
          current.remove(name);
        } else {
          current.put(name, rules);
        }
        var delta = assembler.update(changes);
        load(
            patched,
            delta
                .map(Object::toString)
                .orElseGet(() -> assembler.replaceAll(List.copyOf(current.values()))));

        load(fresh, new RulesetAssembler(CONFIG).replaceAll(List.copyOf(current.values())));
        var patchedObjects = NftTool.objects(directory, patched);
        var freshObjects = NftTool.objects(directory, fresh);
        for (var object : List.of("set hairpins", "map lb-1", "map lb-2", "map service-ips")) {
          if (object.startsWith("map lb-") && freshObjects.get(object) == null) {
            // An lb-N chain and its map stay loaded, empty, once no port has N endpoints.
            assertThat(patchedObjects.getOrDefault(object, List.of()))
                .as("%s after step %d (%s)", object, step, current.keySet())
                .allMatch(line -> line.startsWith("typeof ") || line.startsWith("comment "));
            continue;
          }
          assertThat(patchedObjects.get(object))
              .as("%s after step %d (%s)", object, step, current.keySet())
              .isEqualTo(freshObjects.get(object));
        }
        HostTools.run(directory, "ip", "netns", "del", fresh);
      }
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  private static ServicePortRules empty() {
    return service("shop/empty", "10.96.0.15", 80).cluster();
  }

  private static ServicePortRules lb() {
    return service("shop/lb", "10.96.0.13", 80)
        .loadBalancerIps("192.0.2.10")
        .sourceRanges("203.0.113.0/24")
        .cluster(remote("10.180.3.4", 80));
  }

  private static List<ServicePortRules> mixed() {
    return List.of(
        WEB,
        API,
        service("shop/sticky", "10.96.0.12", 80)
            .sticky(Duration.ofSeconds(60))
            .cluster(remote("10.180.2.4", 80), remote("10.180.2.5", 80)),
        lb(),
        empty());
  }

  private void requireKernelTools() {
    assumeTrue(
        HostTools.onPath("nft").isPresent() && HostTools.onPath("ip").isPresent(),
        "needs nft and ip");
  }

  private void load(String namespace, String script) throws Exception {
    NftTool.load(directory, namespace, script);
  }

  @Test
  void twoPortsWhoseOwnChainsShareAHashedNameAreNeverMergedTheLaterIsLeftOutWithAWarning() {
    // A name hash blind to the Service: the sticky chains of two ports collide.
    java.util.function.UnaryOperator<String> blind =
        key -> dev.proxima.proxy.render.NameHash.of(key.substring(key.indexOf('/', 6)));
    var first =
        service("shop/aaa", "10.96.0.30", 80)
            .sticky(Duration.ofSeconds(60))
            .cluster(remote("10.180.5.4", 80));
    var second =
        service("shop/bbb", "10.96.0.31", 80)
            .sticky(Duration.ofSeconds(60))
            .cluster(remote("10.180.6.4", 80));
    var full = new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), 0, blind);
    var partial = new RulesetAssembler(CONFIG, java.time.Clock.systemUTC(), 0, blind);
    partial.replaceAll(List.of(first));

    var script = full.replaceAll(List.of(first, second));
    var delta = partial.update(Map.of(second.port().name(), second)).orElseThrow().toString();

    assertThat(script).contains("10.180.5.4").doesNotContain("10.180.6.4");
    assertThat(delta).doesNotContain("10.180.6.4");
    for (var warnings : List.of(full.warnings(), partial.warnings())) {
      assertThat(warnings)
          .anyMatch(
              w -> w.startsWith("shop/bbb") && w.contains("shop/aaa") && w.contains("sticky-"));
    }
    assertThat(partial.fullScript()).isEqualTo(script);
  }
}
