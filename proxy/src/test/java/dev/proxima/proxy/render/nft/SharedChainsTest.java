package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.NameHash;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A cold rebuild writes its first transaction, with the shared chains that look up a map, before it
 * renders a port: the chains found from the routing decisions alone are exactly those the render
 * adds, in its order; and should they ever fall short, no transaction leaves a port pointing at a
 * chain that is not there.
 */
class SharedChainsTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  private final MutableClock clock = new MutableClock();

  static Stream<RenderCases.Case> cases() {
    var odd = new ArrayList<ServicePortRules>();
    // Endpoints the decision drops (bad address, other family, repeated): the count is the valid
    // ones'; an externalIP that is the ClusterIP; a load-balancer IP also an externalIP; eTP=Local
    // with and without local endpoints; internal Local; NodePort only.
    odd.add(
        service("ns/bad-endpoints", "10.96.0.1", 80)
            .cluster(
                remote("10.1.0.1", 8080),
                remote("not-an-ip", 8080),
                remote("fd00::1", 8080),
                remote("10.1.0.1", 8080),
                remote("10.1.0.2", 8080)));
    odd.add(
        service("ns/external-is-cluster-ip", "10.96.0.2", 80)
            .externalIps("10.96.0.2")
            .cluster(eps(3).toArray(Endpoint[]::new)));
    odd.add(
        service("ns/local-external-is-cluster-ip", "10.96.0.10", 80)
            .externalIps("10.96.0.10")
            .externalLocal()
            .rules(
                eps(2),
                List.of(local("10.2.0.7", 80), local("10.2.0.8", 80), local("10.2.0.9", 80)),
                true));
    odd.add(
        service("ns/both-external", "10.96.0.3", 80)
            .externalIps("192.0.2.1")
            .loadBalancerIps("192.0.2.1")
            .externalLocal()
            .rules(eps(4), List.of(local("10.2.0.1", 80), local("10.2.0.2", 80)), true));
    odd.add(
        service("ns/local-none", "10.96.0.4", 80)
            .nodePort(30001)
            .externalLocal()
            .rules(eps(5), List.of(), true));
    odd.add(
        service("ns/internal-local", "10.96.0.5", 80)
            .internalLocal()
            .rules(eps(6), List.of(local("10.2.0.3", 80)), true));
    odd.add(
        service("ns/nodeport-only", "None", 80)
            .nodePort(30002)
            .cluster(eps(7).toArray(Endpoint[]::new)));
    odd.add(service("ns/bad-port", "10.96.0.7", 70_000).cluster(eps(8).toArray(Endpoint[]::new)));
    odd.add(
        service("ns/sticky", "10.96.0.8", 80)
            .sticky(Duration.ofSeconds(5))
            .cluster(eps(9).toArray(Endpoint[]::new)));
    odd.add(service("ns/none", "10.96.0.9", 80).nodePort(30003).rules(List.of(), List.of(), false));
    var shapes =
        new RenderCases.Case("every shape", CONFIG, TransactionBatchesTest.shapes(60, 3, 0));
    return Stream.concat(
        RenderCases.all().stream(),
        Stream.of(shapes, new RenderCases.Case("odd inputs", CONFIG, odd)));
  }

  private static List<Endpoint> eps(int count) {
    var eps = new ArrayList<Endpoint>();
    for (int i = 0; i < count; i++) {
      eps.add(remote("10.1." + count + "." + (i + 1), 8080));
    }
    return eps;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theSharedChainsFoundWithoutRenderingAreThoseTheRenderAddsInItsOrder(RenderCases.Case c) {
    var sorted = new ArrayList<>(c.services());
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    var rendered = new LinkedHashSet<String>();
    for (var rules : sorted) {
      var parts = new RenderPass(c.config(), NameHash::of).fragment(rules);
      parts.rules.forEach(
          (chain, rules2) -> {
            if (rules2.stream().anyMatch(NftRule::mapLookup)) {
              rendered.add(chain);
            }
          });
    }

    var shared = RenderPass.sharedChainsOf(c.config(), sorted);

    assertThat(shared.names()).containsExactlyElementsOf(rendered);
    var objects = RenderPass.sharedChainObjects(c.config(), shared);
    assertThat(objects.chains.keySet()).containsExactlyInAnyOrderElementsOf(rendered);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aColdRebuildInBatchesLoadsWhatOneTransactionLoads(RenderCases.Case c) {
    var single = new FakeNft();
    single.apply(new RulesetAssembler(c.config(), clock).replaceAll(c.services()));

    var kernel = new FakeNft();
    for (var batch : new RulesetAssembler(c.config(), clock).replaceAllInBatches(c.services(), 5)) {
      kernel.apply(batch);
    }

    assertThat(kernel.list()).isEqualTo(single.list());
  }

  /**
   * A cold rebuild in transactions of 80 lines, each kept in {@code handed}; the sink stops taking
   * them after the {@code taken}th.
   */
  private static RulesetAssembler.ColdRebuild handOver(
      RulesetAssembler assembler, List<ServicePortRules> ports, List<String> handed, int taken) {
    return assembler.replaceAllInBatches(
        ports,
        80,
        (batch, alone) -> {
          handed.add(batch.toString());
          return handed.size() < taken;
        });
  }

  /** A cold rebuild in transactions of 80 lines with the first one's shared chains given. */
  private RulesetAssembler.ColdRebuild handOver(
      List<ServicePortRules> sorted, RenderPass.SharedChains shared, List<String> handed) {
    return new RulesetAssembler(CONFIG, clock)
        .replaceAllInBatches(sorted, 80, (batch, alone) -> handed.add(batch.toString()), shared);
  }

  @Test
  void theTransactionsHandedOverOneByOneAreTheBatchesOfTheList() {
    var ports = TransactionBatchesTest.shapes(60, 3, 0);
    var assembler = new RulesetAssembler(CONFIG, clock);
    var handed = new ArrayList<String>();

    var written = handOver(assembler, ports, handed, Integer.MAX_VALUE);

    assertThat(written).isEqualTo(RulesetAssembler.ColdRebuild.WRITTEN);
    assertThat(handed)
        .isEqualTo(new RulesetAssembler(CONFIG, clock).replaceAllInBatches(ports, 80));
    // No port's elements: the fixed table's own (the connection counts) are the only ones.
    assertThat(handed.get(0))
        .contains("add chain ip proxima lb-3")
        .containsPattern("add element ip proxima connection-counts ")
        .doesNotContainPattern("add element ip proxima (?!connection-counts )");
  }

  @Test
  void aRefusedTransactionStopsTheOnesAfterItButTheAssemblerStillHoldsEveryPort() {
    var ports = TransactionBatchesTest.shapes(60, 3, 0);
    var assembler = new RulesetAssembler(CONFIG, clock);
    var handed = new ArrayList<String>();

    var written = handOver(assembler, ports, handed, 3);

    assertThat(written).isEqualTo(RulesetAssembler.ColdRebuild.STOPPED);
    assertThat(handed).hasSize(3);
    assertThat(assembler.fullScript())
        .isEqualTo(new RulesetAssembler(CONFIG, clock).replaceAll(ports));
  }

  @Test
  void aSharedChainMissingFromTheFirstTransactionStopsTheBatchesBeforeThePortThatNeedsIt() {
    var ports = new ArrayList<>(TransactionBatchesTest.shapes(60, 3, 0));
    // The only port with nine endpoints, last in name order: long after the first hand-over.
    ports.add(service("zz/last", "10.97.0.1", 80).cluster(eps(9).toArray(Endpoint[]::new)));
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    var shared = RenderPass.sharedChainsOf(CONFIG, sorted);
    assertThat(shared.names()).endsWith("lb-9");
    var sizes = new java.util.LinkedHashMap<String, TreeSet<Integer>>();
    shared.sizes().forEach((prefix, used) -> sizes.put(prefix, new TreeSet<>(used)));
    sizes.get(NftNames.LB_PREFIX).remove(9);
    var lacking =
        new RenderPass.SharedChains(
            shared.names().subList(0, shared.names().size() - 1), sizes, shared.elementsAtLeast());
    var handed = new ArrayList<String>();

    var written = handOver(sorted, lacking, handed);

    assertThat(written).isEqualTo(RulesetAssembler.ColdRebuild.SHARED_CHAINS_DIFFER);
    assertThat(handed).hasSizeGreaterThan(3);
    assertThat(String.join("", handed)).doesNotContain("lb-9").doesNotContain("zz/last");
    var kernel = new FakeNft();
    // FakeNft refuses a transaction naming a chain that does not exist.
    handed.forEach(kernel::apply);
  }

  @Test
  void aSharedChainMissingBeforeAnythingWasHandedOverFallsBackToTheFirstTransactionRenderedLast() {
    var ports = TransactionBatchesTest.shapes(60, 3, 0);
    var sorted = new ArrayList<>(ports);
    sorted.sort(java.util.Comparator.comparing(rules -> rules.port().name()));
    var handed = new ArrayList<String>();

    var written = handOver(sorted, new RenderPass.SharedChains(List.of(), Map.of(), 0), handed);

    assertThat(written).isEqualTo(RulesetAssembler.ColdRebuild.WRITTEN);
    assertThat(handed).hasSizeGreaterThan(3);
    var kernel = new FakeNft();
    // FakeNft refuses a transaction naming a chain that does not exist.
    handed.forEach(kernel::apply);
    var single = new FakeNft();
    single.apply(new RulesetAssembler(CONFIG, clock).replaceAll(ports));
    assertThat(kernel.list()).isEqualTo(single.list());
  }
}
