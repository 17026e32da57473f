package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Zone spill-over in the iptables mode: a statistic match sends the zone's share to the in-zone
 * chain, the rest fall through to the choice of any ready endpoint.
 */
class ZoneSpillIptablesTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  private static final List<Endpoint> IN_ZONE =
      List.of(remote("10.180.0.4", 80), remote("10.180.0.5", 80));
  private static final List<Endpoint> ALL =
      List.of(
          remote("10.180.0.4", 80),
          remote("10.180.0.5", 80),
          remote("10.180.1.4", 80),
          remote("10.180.1.5", 80));

  private static ServicePortRules web(int keepPerMille, Duration sticky) {
    var svc = service("shop/web", "10.96.0.10", 80).nodePort(30080);
    if (sticky != null) {
      svc.sticky(sticky);
    }
    return new ServicePortRules(svc.build(), IN_ZONE, null, true, new ZoneSpill(keepPerMille, ALL));
  }

  private static List<String> chain(ServicePortRules rules, String chain) {
    return IptablesRenderer.render(CONFIG, List.of(rules))
        .filterAndNat()
        .lines()
        .filter(line -> line.startsWith("-A " + chain + " "))
        .toList();
  }

  @Test
  void theServiceChainDrawsTheZonesShareThenSpreadsTheRest() {
    var rules = web(417, null);
    var hash = IptablesChains.serviceHash(rules.port().name());
    var svc = chain(rules, IptablesChains.SVC_PREFIX + hash);
    var spz = chain(rules, IptablesChains.SPZ_PREFIX + hash);

    assertThat(svc.stream().filter(l -> l.contains("-j PROXIMA-SPZ-")))
        .singleElement()
        .asString()
        .contains("-m statistic --mode random --probability 0.4170000000");
    assertThat(svc.stream().filter(l -> l.contains("-j PROXIMA-SEP-"))).hasSize(4);
    assertThat(spz).hasSize(2).allMatch(l -> l.contains("-j PROXIMA-SEP-"));
    // Each endpoint's chain once, whichever list reaches it.
    var seps =
        IptablesRenderer.render(CONFIG, List.of(rules))
            .filterAndNat()
            .lines()
            .filter(l -> l.startsWith(":PROXIMA-SEP-"))
            .count();
    assertThat(seps).isEqualTo(4);
  }

  @Test
  void withAffinityARememberedClientKeepsItsEndpointBeforeTheDraw() {
    var rules = web(250, Duration.ofSeconds(60));
    var svc =
        chain(rules, IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(rules.port().name()));

    int draw = indexOf(svc, "-j PROXIMA-SPZ-");
    assertThat(svc.subList(0, draw).stream().filter(l -> l.contains("--rcheck"))).hasSize(4);
    assertThat(svc.subList(draw, svc.size())).noneMatch(l -> l.contains("--rcheck"));
  }

  @Test
  void aNewFractionIsAPartialBufferOfThatServicesChains() {
    var assembler = new IptablesAssembler(CONFIG);
    assembler.replaceAll(List.of(web(417, null)), Map.of());

    var buffer = assembler.update(Map.of(web(500, null).port().name(), web(500, null)));

    assertThat(buffer).isPresent();
    assertThat(buffer.get()).contains("--probability 0.5000000000").doesNotContain("0.417");
  }

  @Test
  void aPortThatStopsSpillingHasItsInZoneChainDeletedInAPartialBuffer() {
    var assembler = new IptablesAssembler(CONFIG);
    var spilling = web(417, null);
    assembler.replaceAll(List.of(spilling), Map.of());
    var plain = new ServicePortRules(spilling.port(), IN_ZONE, null, true);

    var buffer = assembler.update(Map.of(plain.port().name(), plain));

    var spz = IptablesChains.SPZ_PREFIX + IptablesChains.serviceHash(plain.port().name());
    assertThat(buffer).isPresent();
    assertThat(buffer.get()).contains("-X " + spz + "\n").doesNotContain("--probability 0.417");
  }

  @Test
  void aPortThatKeepsEverythingInZoneRendersExactlyAsWithoutSpillOver() {
    var port = service("shop/web", "10.96.0.10", 80).build();
    var plain = new ServicePortRules(port, IN_ZONE, null, true);
    var whole = new ServicePortRules(port, IN_ZONE, null, true, ZoneSpill.NONE);

    assertThat(IptablesRenderer.render(CONFIG, List.of(whole)).filterAndNat())
        .isEqualTo(IptablesRenderer.render(CONFIG, List.of(plain)).filterAndNat());
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    throw new AssertionError(text + " not in " + lines);
  }
}
