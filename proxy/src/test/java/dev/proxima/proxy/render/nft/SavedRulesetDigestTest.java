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
 * The digests a saved ruleset holds are compared with digests this version computes: a restarted
 * proxy recognises a Service port it saved only while both stay the same for the same input.
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
  void aServicePortsDigestIsTheOneEarlierVersionsSaved() {
    assertThat(SavedRuleset.digest(PORT)).isEqualTo("aa05eb2116f2293a8518237c79998559");
  }

  @Test
  void theSettingsDigestIsTheOneEarlierVersionsSaved() {
    var config =
        RuleSettings.defaults().forFamily(IpFamily.IPV4, List.of("192.168.0.11"), List.of());

    assertThat(new RulesetAssembler(config).settingsDigest())
        .isEqualTo("1addf190ab66949e2a768c44465cbbc1-ea62a4209532007e0e37ee2351cb2997");
  }
}
