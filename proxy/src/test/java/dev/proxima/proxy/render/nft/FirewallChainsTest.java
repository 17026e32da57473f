package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.NameHash;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.NftTracer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The source ranges of load-balancer addresses: one chain and one plain interval set per distinct
 * range list, so what nft loads grows linearly with the ranges, however many Services have them.
 */
class FirewallChainsTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  private final MutableClock clock = new MutableClock();
  private final RulesetAssembler assembler = new RulesetAssembler(CONFIG, clock);

  /** Service {@code i}: {@code ports} ports on one LB address, {@code ranges} ranges of its own. */
  private static List<ServicePortRules> firewalled(int i, int ports, int ranges) {
    var sources = new ArrayList<String>();
    for (int r = 0; r < ranges; r++) {
      sources.add((20 + i) + "." + (r / 256) + "." + (r % 256) + ".0/24");
    }
    var out = new ArrayList<ServicePortRules>();
    for (int p = 0; p < ports; p++) {
      out.add(
          service("tenant/lb-" + i + ":p" + p, "10.96.1." + (i + 1), 8000 + p)
              .loadBalancerIps("203.0.113." + (i + 1))
              .sourceRanges(sources.toArray(String[]::new))
              .cluster(remote("10.180.0." + (i + 1), 8000 + p)));
    }
    return out;
  }

  private static ServicePortRules lb(String name, String address, String... ranges) {
    return service(name, "10.96.0." + address.substring(address.lastIndexOf('.') + 1), 80)
        .loadBalancerIps(address)
        .sourceRanges(ranges)
        .cluster(remote("10.180.9.9", 80));
  }

  private static Map<ServicePortName, ServicePortRules> change(ServicePortRules... rules) {
    var map = new HashMap<ServicePortName, ServicePortRules>();
    for (var rule : rules) {
      map.put(rule.port().name(), rule);
    }
    return map;
  }

  private static NftTracer.Verdict verdict(FakeNft kernel, String source, String address) {
    var tracer = new NftTracer(kernel, List.of("192.168.0.1"));
    return tracer
        .traceAll(new NftTracer.Packet(source, address, "tcp", 80, "eth0"))
        .get(0)
        .verdict();
  }

  @Test
  void eachRangeListHasASetOfItsOwnNoLargerThanTheListAndNoSetMixesTwoLists() {
    int services = 10;
    int ports = 4;
    int ranges = 250;
    var all = new ArrayList<ServicePortRules>();
    for (int i = 0; i < services; i++) {
      all.addAll(firewalled(i, ports, ranges));
    }
    var kernel = new FakeNft();

    kernel.apply(assembler.replaceAll(all));

    var declarations = kernel.chainDeclarations().keySet();
    var firewallSets = new ArrayList<Map<String, String>>();
    kernel
        .objects()
        .keySet()
        .forEach(
            object -> {
              var name = object.substring(object.indexOf(' ') + 1);
              var declaration = kernel.declaration(name);
              if (object.startsWith("set ") && declaration.contains("flags interval")) {
                if (!name.equals("service-cidrs")) {
                  assertThat(declaration).as(name).contains("{ type ipv4_addr ; flags interval ;");
                  firewallSets.add(kernel.elementsOf(name));
                  assertThat(declarations).as("its chain").contains(name);
                }
              }
            });
    assertThat(firewallSets).as("one set per Service's list").hasSize(services);
    var seen = new HashSet<String>();
    for (var set : firewallSets) {
      assertThat(set).hasSize(ranges);
      var firstOctets = new HashSet<String>();
      set.keySet().forEach(range -> firstOctets.add(range.substring(0, range.indexOf('.'))));
      assertThat(firstOctets).as("the ranges of one Service alone").hasSize(1);
      assertThat(seen.addAll(set.keySet())).isTrue();
    }
    assertThat(kernel.elementsOf("firewall-ips")).hasSize(services * ports);
  }

  @Test
  void servicesWithTheSameRangesInAnyOrderShareOneChainAndSet() {
    var a = lb("shop/a", "203.0.113.1", "192.0.2.0/24", "198.51.100.0/24");
    var b = lb("shop/b", "203.0.113.2", "198.51.100.0/24", "192.0.2.0/24");
    var c = lb("shop/c", "203.0.113.3", "192.0.2.0/24");
    var kernel = new FakeNft();

    kernel.apply(assembler.replaceAll(List.of(a, b, c)));

    var targets = new HashSet<String>(kernel.elementsOf("firewall-ips").values());
    assertThat(kernel.chainDeclarations().keySet().stream().filter(n -> n.startsWith("fw-")))
        .hasSize(2);
    assertThat(targets).hasSize(3);
    assertThat(verdict(kernel, "198.51.100.7", "203.0.113.2")).isEqualTo(NftTracer.Verdict.DNAT);
    assertThat(verdict(kernel, "198.51.100.7", "203.0.113.3")).isEqualTo(NftTracer.Verdict.DROP);
    assertThat(verdict(kernel, "192.0.2.7", "203.0.113.3")).isEqualTo(NftTracer.Verdict.DNAT);
  }

  @Test
  void aLoadBalancerWithNoReadableRangeDropsEverySource() {
    var kernel = new FakeNft();

    kernel.apply(assembler.replaceAll(List.of(lb("shop/a", "203.0.113.1", "not-a-range"))));

    assertThat(verdict(kernel, "192.0.2.7", "203.0.113.1")).isEqualTo(NftTracer.Verdict.DROP);
  }

  @Test
  void changedRangesAreAPartialSyncAndTheOldChainAndSetAreDeletedByTheCleanup() {
    var kernel = new FakeNft();
    var other = lb("shop/other", "203.0.113.9", "192.0.2.0/24");
    kernel.apply(
        assembler.replaceAll(List.of(lb("shop/a", "203.0.113.1", "198.51.100.0/24"), other)));
    var before = new HashSet<>(kernel.chainDeclarations().keySet());

    var changed = lb("shop/a", "203.0.113.1", "198.51.100.0/25", "100.64.0.0/10");
    var delta = assembler.update(change(changed));

    assertThat(delta).as("a delta, not a full sync").isPresent();
    kernel.apply(delta.get());
    assertThat(delta.get().toString()).doesNotContain("192.0.2.0/24");
    assertThat(verdict(kernel, "100.64.3.3", "203.0.113.1")).isEqualTo(NftTracer.Verdict.DNAT);
    assertThat(verdict(kernel, "198.51.100.200", "203.0.113.1")).isEqualTo(NftTracer.Verdict.DROP);

    clock.advance(RulesetAssembler.STALE_DELAY);
    var cleanup = assembler.staleCleanup().orElseThrow();
    kernel.apply(cleanup.transaction().toString());
    assembler.staleDeleted(cleanup);

    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(CONFIG).replaceAll(List.of(changed, other)));
    assertThat(kernel.list()).isEqualTo(fresh.list());
    Set<String> gone = new HashSet<>(before);
    gone.removeAll(kernel.chainDeclarations().keySet());
    assertThat(gone).singleElement().asString().startsWith("fw-");
  }

  @Test
  void aSharedListKeepsItsChainWhileAnyServiceUsesIt() {
    var kernel = new FakeNft();
    var a = lb("shop/a", "203.0.113.1", "192.0.2.0/24");
    var b = lb("shop/b", "203.0.113.2", "192.0.2.0/24");
    kernel.apply(assembler.replaceAll(List.of(a, b)));

    var removing = new HashMap<ServicePortName, ServicePortRules>();
    removing.put(a.port().name(), null);
    kernel.apply(assembler.update(removing).orElseThrow());
    clock.advance(RulesetAssembler.STALE_DELAY);

    assertThat(assembler.staleCleanup()).isEmpty();
    assertThat(verdict(kernel, "192.0.2.7", "203.0.113.2")).isEqualTo(NftTracer.Verdict.DNAT);
    assertThat(verdict(kernel, "198.51.100.7", "203.0.113.2")).isEqualTo(NftTracer.Verdict.DROP);
  }

  @Test
  void twoRangeListsWhoseNamesMeetAreNeverMergedTheLaterIsLeftOutWithAWarning() {
    UnaryOperator<String> blind =
        key -> key.startsWith("firewall:") ? "A".repeat(52) : NameHash.of(key);
    var first = lb("shop/aaa", "203.0.113.1", "192.0.2.0/24");
    var second = lb("shop/bbb", "203.0.113.2", "198.51.100.0/24");
    var full = new RulesetAssembler(CONFIG, Clock.systemUTC(), 0, blind);
    var partial = new RulesetAssembler(CONFIG, Clock.systemUTC(), 0, blind);
    partial.replaceAll(List.of(first));

    var script = full.replaceAll(List.of(first, second));
    var delta = partial.update(change(second));

    assertThat(script).contains("192.0.2.0/24").doesNotContain("198.51.100.0/24");
    delta.ifPresent(d -> assertThat(d.toString()).doesNotContain("198.51.100.0/24"));
    for (var warnings : List.of(full.warnings(), partial.warnings())) {
      assertThat(warnings)
          .anyMatch(w -> w.startsWith("shop/bbb") && w.contains("fw-") && w.contains("left out"));
    }
  }
}
