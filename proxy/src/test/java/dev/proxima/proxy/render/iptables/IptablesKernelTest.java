package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.dataplane.DataPlane;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.kernel.HostCommand;
import dev.proxima.proxy.kernel.Iptables;
import dev.proxima.proxy.kernel.IptablesBackend;
import dev.proxima.proxy.kernel.LeftoverRules;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The iptables mode against the real tools in scratch network namespaces (nft backend): partial
 * restores, leftover chains, jump rules, cleanup and a rejected buffer. Needs root and iptables;
 * without them the tests are reported as skipped.
 */
@RootTier
class IptablesKernelTest {
  private static final RuleSettings SETTINGS =
      new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of());

  @TempDir Path dir;
  private final List<String> namespaces = new ArrayList<>();

  @BeforeEach
  void requireToolsAndRoot() {
    for (String tool : List.of("ip", "iptables-nft", "iptables-nft-restore", "iptables-nft-save")) {
      assumeTrue(
          HostCommand.find(tool).isPresent(), tool + " is missing (apt-get install iptables)");
    }
  }

  @AfterEach
  void deleteNamespaces() {
    namespaces.forEach(ns -> HostTools.run(dir, null, List.of("ip", "netns", "del", ns)));
  }

  private List<String> namespace() {
    String name = "proxima-iptk-" + UUID.randomUUID().toString().substring(0, 8);
    HostTools.run(dir, null, List.of("ip", "netns", "add", name)).assertSucceeded();
    namespaces.add(name);
    return List.of("ip", "netns", "exec", name);
  }

  private static Iptables iptables(List<String> prefix) {
    return new Iptables(prefix, IpFamily.IPV4, IptablesBackend.NFT);
  }

  private static IptablesDataPlane plane(Iptables iptables) {
    return new IptablesDataPlane(
        IpFamily.IPV4,
        SETTINGS,
        iptables,
        new ProxyMetrics(new PrometheusRegistry(), ProxyMode.iptables));
  }

  /** Every chain with its rules, as the kernel reports them; chain order does not matter. */
  private static Map<String, List<String>> kernelState(Iptables iptables) {
    Map<String, List<String>> state = new TreeMap<>();
    iptables
        .save()
        .forEach(
            (table, save) -> {
              for (String line : save.split("\n")) {
                if (line.startsWith(":")) {
                  state.computeIfAbsent(table + " " + line.split(" ")[0], k -> new ArrayList<>());
                } else if (line.startsWith("-A ")) {
                  state
                      .computeIfAbsent(table + " :" + line.split(" ")[1], k -> new ArrayList<>())
                      .add(line);
                }
              }
            });
    return state;
  }

  private static ServicePortRules web(String... endpointIps) {
    var endpoints = new ArrayList<dev.proxima.proxy.model.Endpoint>();
    for (String ip : endpointIps) {
      endpoints.add(remote(ip, 8080));
    }
    return service("shop/web", "10.96.0.10", 80)
        .portName("http")
        .cluster(endpoints.toArray(dev.proxima.proxy.model.Endpoint[]::new));
  }

  @Test
  void partialRestoresLeaveTheKernelAsAFreshFullLoadOfTheSameServicesWould() {
    var patched = iptables(namespace());
    var fresh = iptables(namespace());
    var live = plane(patched);
    var api =
        service("shop/api", "10.96.0.11", 80).portName("http").cluster(remote("10.1.0.9", 80));
    assertThat(live.replaceAll(List.of(web("10.1.0.1", "10.1.0.2"), api), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);

    List<Map<ServicePortName, ServicePortRules>> steps = new ArrayList<>();
    steps.add(Map.of(web().port().name(), web("10.1.0.2", "10.1.0.3", "10.1.0.4")));
    steps.add(Map.of(web().port().name(), web()));
    var removeApi = new HashMap<ServicePortName, ServicePortRules>();
    removeApi.put(api.port().name(), null);
    steps.add(removeApi);
    steps.add(Map.of(web().port().name(), web("10.1.0.5")));
    for (var step : steps) {
      var outcome = live.update(step);
      assertThat(outcome.status())
          .as("%s: %s", step, outcome.error())
          .isEqualTo(DataPlane.Status.LOADED);
    }
    plane(fresh).replaceAll(List.of(web("10.1.0.5")), List.of());

    assertThat(kernelState(patched)).isEqualTo(kernelState(fresh));
    assertThat(kernelState(patched).keySet())
        .as("no chain of a removed endpoint or Service is left")
        .filteredOn(chain -> chain.contains("PROXIMA-SEP-"))
        .hasSize(1);
  }

  @Test
  void inLargeRulesetsPartialEditsLeaveTheSameRulesAsAFreshLoadWithTheNodePortJumpLast() {
    var patched = iptables(namespace());
    var fresh = iptables(namespace());
    var live = plane(patched);
    List<ServicePortRules> base = new ArrayList<>(IptablesCases.manyEndpoints(1001));
    var api =
        service("shop/api", "10.96.0.11", 80)
            .portName("http")
            .nodePort(30011)
            .cluster(remote("10.1.0.9", 80));
    base.add(api);
    base.add(web("10.1.0.1"));
    assertThat(live.replaceAll(base, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    var removeApi = new HashMap<ServicePortName, ServicePortRules>();
    removeApi.put(api.port().name(), null);
    var steps =
        List.<Map<ServicePortName, ServicePortRules>>of(
            Map.of(web().port().name(), web("10.1.0.2", "10.1.0.3")),
            removeApi,
            Map.of(web().port().name(), web()),
            Map.of(web().port().name(), web("10.1.0.5")));
    for (var step : steps) {
      var outcome = live.update(step);
      assertThat(outcome.status()).as("%s", outcome.error()).isEqualTo(DataPlane.Status.LOADED);
    }
    List<ServicePortRules> target = new ArrayList<>(IptablesCases.manyEndpoints(1001));
    target.add(web("10.1.0.5"));
    plane(fresh).replaceAll(target, List.of());

    var patchedState = kernelState(patched);
    var freshState = kernelState(fresh);
    assertThat(patchedState.keySet()).isEqualTo(freshState.keySet());
    patchedState.forEach(
        (chain, rules) ->
            assertThat(rules).as(chain).containsExactlyInAnyOrderElementsOf(freshState.get(chain)));
    assertThat(patchedState.get("nat :PROXIMA-SERVICES"))
        .last()
        .asString()
        .contains("-j PROXIMA-NODEPORTS");
  }

  @ParameterizedTest(name = "about {0} lines a buffer")
  @ValueSource(ints = {2, 40})
  void aFullSyncInSmallBatchesLeavesTheKernelAsOneBufferWouldAndEachBatchLoads(int lines) {
    var batched = iptables(namespace());
    var whole = iptables(namespace());
    var services =
        List.of(
            web("10.1.0.1", "10.1.0.2"),
            IptablesCases.threeEndpoints(),
            IptablesCases.sticky(),
            IptablesCases.externalLocalLoadBalancer(),
            IptablesCases.nodePort());
    var config = SETTINGS.forFamily(IpFamily.IPV4, List.of(), List.of());
    // Leftovers from an earlier run, one of them still in use.
    plane(batched).replaceAll(List.of(web("10.1.0.7"), IptablesCases.twoEndpoints()), List.of());

    var buffers =
        new IptablesAssembler(config).replaceAllInBatches(services, batched.listing(), lines);
    for (String buffer : buffers) {
      var result = batched.apply(buffer);
      assertThat(result.succeeded()).as("%s%n%s", result.summary(), buffer).isTrue();
    }
    whole.apply(new IptablesAssembler(config).replaceAll(services, java.util.Map.of()));

    assertThat(buffers).hasSizeGreaterThan(3);
    var batchedState = kernelState(batched);
    batchedState.keySet().removeIf(chain -> !chain.contains("PROXIMA-"));
    var wholeState = kernelState(whole);
    wholeState.keySet().removeIf(chain -> !chain.contains("PROXIMA-"));
    assertThat(batchedState).isEqualTo(wholeState);
  }

  @Test
  void aFullSyncDeletesLeftoverChainsAndAddsEachJumpOnceHoweverOftenItRuns() {
    var prefix = namespace();
    var kernel = iptables(prefix);
    var plane = plane(kernel);
    plane.replaceAll(List.of(web("10.1.0.1"), IptablesCases.threeEndpoints()), List.of());

    plane.replaceAll(List.of(web("10.1.0.1")), List.of());
    plane.replaceAll(List.of(web("10.1.0.1")), List.of());

    var state = kernelState(kernel);
    String svc3 =
        IptablesChains.SVC_PREFIX
            + IptablesChains.serviceHash(IptablesCases.threeEndpoints().port().name());
    assertThat(state.keySet()).noneMatch(chain -> chain.contains(svc3));
    assertThat(state.get("nat :PREROUTING"))
        .singleElement()
        .asString()
        .contains("-j PROXIMA-SERVICES");
    assertThat(state.get("filter :FORWARD")).hasSize(4);
    assertThat(plane.intact()).isTrue();

    HostTools.run(dir, null, concat(prefix, "iptables-nft", "-t", "nat", "-F", "PREROUTING"))
        .assertSucceeded();
    assertThat(plane.intact()).as("a flushed built-in chain is noticed").isFalse();
  }

  @Test
  void aRejectedBufferLeavesThePreviousRulesInPlace() {
    var kernel = iptables(namespace());
    plane(kernel).replaceAll(List.of(web("10.1.0.1")), List.of());
    var before = kernelState(kernel);

    var result =
        kernel.apply(
            "*nat\n:PROXIMA-SERVICES - [0:0]\n-A PROXIMA-SERVICES -j PROXIMA-DOES-NOT-EXIST\nCOMMIT\n");

    assertThat(result.succeeded()).isFalse();
    assertThat(result.summary()).contains("PROXIMA-DOES-NOT-EXIST");
    assertThat(kernelState(kernel)).isEqualTo(before);
  }

  @Test
  void cleanupRemovesEveryProximaChainAndJumpAndNothingElse() {
    var prefix = namespace();
    var kernel = iptables(prefix);
    HostTools.run(
            dir,
            null,
            concat(
                prefix,
                "iptables-nft",
                "-t",
                "nat",
                "-A",
                "POSTROUTING",
                "-s",
                "10.9.0.0/16",
                "-j",
                "MASQUERADE"))
        .assertSucceeded();
    HostTools.run(dir, null, concat(prefix, "iptables-nft", "-N", "OTHER-TOOL")).assertSucceeded();
    plane(kernel).replaceAll(List.of(web("10.1.0.1")), List.of());

    assertThat(LeftoverRules.removeIptables(prefix)).isEmpty();

    var saved = String.join("\n", kernel.save().values());
    assertThat(saved)
        .doesNotContain("PROXIMA-")
        .contains("-s 10.9.0.0/16 -j MASQUERADE", ":OTHER-TOOL");
    assertThat(LeftoverRules.removeIptables(prefix)).as("idempotent").isEmpty();
  }

  @Test
  void switchingModesRemovesOnlyTheOtherModesRules() {
    assumeTrue(HostCommand.find("nft").isPresent(), "nft is missing (apt-get install nftables)");
    var prefix = namespace();
    var kernel = iptables(prefix);
    var nft =
        new dev.proxima.proxy.kernel.Nft(concat(prefix, "nft"), java.time.Duration.ofSeconds(30));
    plane(kernel).replaceAll(List.of(web("10.1.0.1")), List.of());
    assertThat(
            nft.apply(FakeNft.script("add table ip proxima\nadd chain ip proxima services\n"))
                .succeeded())
        .isTrue();

    // Starting in iptables mode: the nftables mode's tables go, Proxima's chains stay.
    assertThat(LeftoverRules.removeNftables(nft)).isEmpty();
    assertThat(nft.list("ip", "proxima").succeeded()).isFalse();
    assertThat(kernelState(kernel).keySet()).anyMatch(chain -> chain.contains("PROXIMA-SVC-"));

    // Starting in nftables mode: the iptables mode's chains go.
    assertThat(nft.apply(FakeNft.script("add table ip proxima\n")).succeeded()).isTrue();
    assertThat(LeftoverRules.removeIptables(prefix)).isEmpty();
    assertThat(String.join("\n", kernel.save().values())).doesNotContain("PROXIMA-");
    assertThat(nft.list("ip", "proxima").succeeded()).isTrue();
  }

  private static List<String> concat(List<String> prefix, String... command) {
    var all = new ArrayList<>(prefix);
    all.addAll(List.of(command));
    return all;
  }

  @Test
  void aFullSyncRepairsAnEmptiedCounterChainAndLeavesTheOthersCountsAlone() {
    var prefix = namespace();
    var kernel = iptables(prefix);
    var live = plane(kernel);
    assertThat(live.replaceAll(List.of(web("10.1.0.1")), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);
    // Counts as if traffic had passed: iptables -R ... -c PACKETS BYTES sets a rule's counters.
    setCounter(prefix, "nat", "PROXIMA-COUNT-UNKNOWN", 7);
    setCounter(prefix, "filter", "PROXIMA-COUNT-NO-ENDPOINTS", 3);
    var ipt = new ArrayList<>(prefix);
    ipt.addAll(List.of("iptables-nft", "-w", "5", "-t", "nat", "-F", "PROXIMA-COUNT-ZONE"));
    HostTools.run(dir, null, ipt).assertSucceeded();
    assertThat(live.connectionCounts()).as("a counter without its rule reads as nothing").isEmpty();

    assertThat(live.replaceAll(List.of(web("10.1.0.1")), List.of()).status())
        .isEqualTo(DataPlane.Status.LOADED);

    var counts = live.connectionCounts().orElseThrow();
    assertThat(counts.byLocality().get(dev.proxima.proxy.model.Locality.UNKNOWN)).isEqualTo(7);
    assertThat(counts.byLocality().get(dev.proxima.proxy.model.Locality.ZONE)).isZero();
    assertThat(counts.withoutEndpoints()).isEqualTo(3);
    assertThat(kernelState(kernel).get("nat :PROXIMA-COUNT-ZONE"))
        .containsExactly("-A PROXIMA-COUNT-ZONE -j RETURN");
  }

  @Test
  void aCountedPortKeepsItsCountsThroughPartialSyncsAndLosesItsChainsWhenNoLongerCounted() {
    var prefix = namespace();
    var patched = iptables(prefix);
    var fresh = iptables(namespace());
    var live = plane(patched);
    var api =
        service("shop/api", "10.96.0.11", 80).portName("http").cluster(remote("10.1.0.9", 80));
    assertThat(
            live.replaceAll(List.of(IptablesCases.counted(web("10.1.0.1")), api), List.of())
                .status())
        .isEqualTo(DataPlane.Status.LOADED);
    var webName = web().port().name();
    String stem = IptablesChains.serviceCounterStem(webName);
    setCounter(prefix, "nat", stem + "UNKNOWN", 5);

    List<Map<ServicePortName, ServicePortRules>> steps = new ArrayList<>();
    steps.add(Map.of(webName, IptablesCases.counted(web("10.1.0.1", "10.1.0.2"))));
    steps.add(Map.of(api.port().name(), IptablesCases.counted(api)));
    for (var step : steps) {
      var outcome = live.update(step);
      assertThat(outcome.status())
          .as("%s: %s", step, outcome.error())
          .isEqualTo(DataPlane.Status.LOADED);
    }
    var counts = live.connectionCounts().orElseThrow().servicePorts().asMap();
    assertThat(counts.get(webName).get(dev.proxima.proxy.model.Locality.UNKNOWN))
        .as("a partial sync of a port still counted leaves its counts alone")
        .isEqualTo(5);
    assertThat(counts.get(api.port().name())).as("counted from its partial sync on").isNotNull();

    var removeApi = new HashMap<ServicePortName, ServicePortRules>();
    removeApi.put(api.port().name(), null);
    for (var step : List.of(Map.of(webName, web("10.1.0.2")), removeApi)) {
      var outcome = live.update(step);
      assertThat(outcome.status())
          .as("%s: %s", step, outcome.error())
          .isEqualTo(DataPlane.Status.LOADED);
    }
    assertThat(live.connectionCounts().orElseThrow().servicePorts().asMap()).isEmpty();
    plane(fresh).replaceAll(List.of(web("10.1.0.2")), List.of());
    assertThat(kernelState(patched))
        .as("no counter chain of a port no longer counted is left")
        .isEqualTo(kernelState(fresh));
  }

  private void setCounter(List<String> prefix, String table, String chain, long packets) {
    var command = new ArrayList<>(prefix);
    command.addAll(
        List.of(
            "iptables-nft",
            "-w",
            "5",
            "-t",
            table,
            "-R",
            chain,
            "1",
            "-c",
            String.valueOf(packets),
            String.valueOf(packets * 60),
            "-j",
            "RETURN"));
    HostTools.run(dir, null, command).assertSucceeded();
  }
}
