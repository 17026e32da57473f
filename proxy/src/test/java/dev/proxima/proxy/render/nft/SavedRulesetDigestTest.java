package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.plan.RuleSettings;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The digests a saved ruleset holds are compared with the digests a restarted proxy computes: it
 * recognises a Service port it saved only while both are the same for the same input, in every JVM,
 * and differ for different input.
 */
class SavedRulesetDigestTest {
  private static final ServicePortRules PORT =
      service("shop/web", "10.96.0.10", 80)
          .nodePort(30080)
          .externalIps("192.0.2.10")
          .sticky(Duration.ofSeconds(60))
          .externalLocal()
          .rules(
              List.of(
                  remote("10.180.0.4", 8080, Locality.ZONE),
                  new Endpoint(
                      "10.180.0.5",
                      8080,
                      true,
                      true,
                      false,
                      "node-b",
                      false,
                      Set.of("zone-b", "zone-a"),
                      Set.of("node-b"),
                      Locality.OTHER_ZONE)),
              List.of(local("10.180.0.6", 8080)),
              true);

  @Test
  void aServicePortsDigestIsTheSameInEveryJvm() {
    assertThat(SavedRuleset.digest(PORT)).isEqualTo("12ac40703b2cf3e5b19ec417c1cdc69c");
  }

  @Test
  void theSettingsDigestIsTheSameInEveryJvm() {
    var config =
        RuleSettings.defaults().forFamily(IpFamily.IPV4, List.of("192.168.0.11"), List.of());

    // The second half digests the fixed table's script, so a renderer that changes it (the four
    // counting sets replaced the named counters) makes files saved by older versions rebuild.
    assertThat(new RulesetAssembler(config).settingsDigest())
        .isEqualTo("ce21639f36bd1672ccbeb6f90320b4ed-7fde37e856de1dae7eae0b50f1fc0e09");
  }

  @Test
  void aNameHoldingACommaIsNotTakenForTwoNames() {
    var oneZone = hinted(Set.of("zone-a,zone-b"));
    var twoZones = hinted(Set.of("zone-a", "zone-b"));

    assertThat(SavedRuleset.digest(oneZone)).isNotEqualTo(SavedRuleset.digest(twoZones));
  }

  private static Endpoint hinted(Set<String> zones) {
    return new Endpoint(
        "10.180.0.5", 8080, true, true, false, "node-b", false, zones, Set.of(), Locality.ZONE);
  }
}
