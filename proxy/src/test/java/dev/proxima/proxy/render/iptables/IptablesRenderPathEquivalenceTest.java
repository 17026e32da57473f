package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.RandomPorts;
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way the iptables rules reach the kernel ends in the same chains: one full buffer, the
 * batched full buffers, a full sync over an older ruleset, and a first full sync plus any sequence
 * of partial buffers. Checked on {@link FakeIptablesRestore} for seeded random sequences.
 */
class IptablesRenderPathEquivalenceTest {
  private static final FamilySettings V4 = FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  private static final FamilySettings V6 =
      FamilySettings.of(IpFamily.IPV6, List.of("fd00:10::/64"));
  private static final int PORTS = 14;
  private static final int STEPS = 60;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void partialAndFullSyncsLeaveTheChainsAFreshFullSyncWouldWrite(long seed) {
    var random = new Random(seed);
    var settings = seed % 4 == 0 ? V6 : V4;
    var current = RandomPorts.initial(random, PORTS / 2, settings.family());
    var assembler = new IptablesAssembler(settings);
    var kernel = new FakeIptablesRestore();
    kernel.apply(assembler.replaceAll(List.copyOf(current.values()), Map.of()));

    int partial = 0;
    for (int step = 0; step < STEPS; step++) {
      var changes = RandomPorts.change(random, PORTS, settings.family(), current);
      var buffer = assembler.update(changes);
      if (buffer.isPresent()) {
        partial++;
        kernel.apply(buffer.get());
      } else {
        kernel.apply(assembler.replaceAll(List.copyOf(current.values()), kernel.chains()));
      }
      if (random.nextInt(5) == 0) {
        var batches =
            assembler.replaceAllInBatches(
                List.copyOf(current.values()), kernel.listingForSync(), 1 + random.nextInt(40));
        batches.forEach(kernel::apply);
      }
      var fresh = new FakeIptablesRestore();
      fresh.apply(
          new IptablesAssembler(settings).replaceAll(List.copyOf(current.values()), Map.of()));
      var when = "seed " + seed + " step " + step;
      var held = kernel.listing();
      var wanted = fresh.listing();
      assertThat(held.keySet()).as(when).containsExactlyElementsOf(wanted.keySet());
      wanted.forEach(
          (chain, rules) -> assertThat(held.get(chain)).as(when + " " + chain).isEqualTo(rules));
    }
    assertThat(partial).as("most steps are partial syncs").isGreaterThan(STEPS / 2);
  }

  /**
   * Two Service ports are two ports when only their protocol differs, as {@link ServicePortName}
   * says (the nft assembler agreed; the iptables one compared printed names only).
   */
  @Test
  void twoPortsThatDifferOnlyByProtocolAreBothProgrammedAndBothRemovable() {
    var tcp =
        ServicePortFixtures.service("ns/dns", "10.96.0.10", 53)
            .cluster(ServicePortFixtures.remote("10.180.0.5", 53));
    var udp =
        ServicePortFixtures.service("ns/dns", "10.96.0.10", 53)
            .protocol(Protocol.UDP)
            .cluster(ServicePortFixtures.remote("10.180.0.5", 53));
    var assembler = new IptablesAssembler(V4);
    var kernel = new FakeIptablesRestore();
    kernel.apply(assembler.replaceAll(List.of(tcp, udp), Map.of()));

    assertThat(assembler.warnings()).isEmpty();
    assertThat(kernel.listing().get("nat PROXIMA-SERVICES"))
        .anyMatch(rule -> rule.contains("-p tcp"))
        .anyMatch(rule -> rule.contains("-p udp"));

    var changes = new HashMap<ServicePortName, ServicePortRules>();
    changes.put(tcp.port().name(), null);
    kernel.apply(assembler.update(changes).orElseThrow());
    var fresh = new FakeIptablesRestore();
    fresh.apply(new IptablesAssembler(V4).replaceAll(List.of(udp), Map.of()));
    assertThat(kernel.listing()).isEqualTo(fresh.listing());
  }

  @Test
  void batchedBuffersWriteWhatOneBufferWrites() {
    var random = new Random(7);
    var ports = new ArrayList<ServicePortRules>();
    for (int i = 0; i < PORTS; i++) {
      ports.add(RandomPorts.port(random, i, IpFamily.IPV4));
    }
    var whole = new FakeIptablesRestore();
    whole.apply(new IptablesAssembler(V4).replaceAll(ports, Map.of()));
    var batched = new FakeIptablesRestore();
    new IptablesAssembler(V4)
        .replaceAllInBatches(ports, batched.listingForSync(), 3)
        .forEach(batched::apply);

    assertThat(batched.listing()).isEqualTo(whole.listing());
  }

  @Test
  void theFakeRefusesWhatTheToolRefuses() {
    var kernel = new FakeIptablesRestore();
    kernel.apply(
        "*nat\n:PROXIMA-A - [0:0]\n:PROXIMA-B - [0:0]\n-A PROXIMA-A -j PROXIMA-B\nCOMMIT\n");

    assertThatThrownBy(() -> kernel.apply("*nat\n-X PROXIMA-B\nCOMMIT\n"))
        .hasMessageContaining("still a target");
    assertThatThrownBy(() -> kernel.apply("*nat\n-A PROXIMA-A -j PROXIMA-C\nCOMMIT\n"))
        .hasMessageContaining("PROXIMA-C");
    assertThatThrownBy(
            () ->
                kernel.apply("*nat\n-A PROXIMA-A -m comment --comment \"a\"b\" -j DROP\nCOMMIT\n"))
        .hasMessageContaining("quote");
    assertThat(kernel.listing())
        .containsExactly(
            Map.entry("nat PROXIMA-A", List.of("-j PROXIMA-B")),
            Map.entry("nat PROXIMA-B", List.of()));
  }
}
