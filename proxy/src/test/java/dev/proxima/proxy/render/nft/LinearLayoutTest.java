package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Service port's endpoints are in the table once, whatever number of addresses lead to it: the
 * script grows with addresses plus endpoints, not with their product, so a tenant's Service of many
 * externalIPs and many endpoints costs no more than its parts.
 */
class LinearLayoutTest {
  private static final int ENDPOINTS = 1000;

  /**
   * One Service of {@code ports} ports with a NodePort each, all to the same {@code ENDPOINTS}
   * endpoints, counted per locality when {@code counted}.
   */
  private static List<ServicePortRules> wide(int externalIps, int ports, boolean counted) {
    var endpoints = new ArrayList<Endpoint>();
    for (int i = 0; i < ENDPOINTS; i++) {
      endpoints.add(remote("10.2." + (i / 250) + "." + (i % 250 + 1), 8080));
    }
    var addresses = new ArrayList<String>();
    for (int i = 0; i < externalIps; i++) {
      addresses.add("192.0.2." + (i + 1));
    }
    var out = new ArrayList<ServicePortRules>();
    for (int p = 0; p < ports; p++) {
      var port =
          service("tenant/wide", "172.30.9.9", 1000 + p)
              .portName("p" + p)
              .nodePort(30000 + p)
              .externalIps(addresses.toArray(String[]::new));
      if (counted) {
        port.observeLocality();
      }
      out.add(port.cluster(endpoints.toArray(Endpoint[]::new)));
    }
    return out;
  }

  private static String render(List<ServicePortRules> ports) {
    return new RulesetAssembler(RenderCases.v4()).replaceAll(ports);
  }

  /** The elements of every set and map in a script, and the endpoints written in rules. */
  private static long elements(String script) {
    var parsed = new Script(script);
    long count = 0;
    for (var set : parsed.sets()) {
      count += parsed.elements(set).size();
    }
    for (var line : parsed.lines()) {
      if (line.startsWith("add rule") && line.contains(" map { ")) {
        count += line.split(" : ").length - 1;
      }
    }
    return count;
  }

  @Test
  void aHundredExternalIpsCostAtMostHalfAgainTheServiceWithoutThem() {
    String without = render(wide(0, 10, false));
    String with = render(wide(100, 10, false));

    assertThat((double) with.length())
        .as("script characters, with %d without", without.length())
        .isLessThanOrEqualTo(1.5 * without.length() + 64 * 1024);
    assertThat(elements(with)).isLessThanOrEqualTo((long) (1.5 * elements(without)) + 64);
    // Each port's thousand endpoints once, in the chain of its own.
    assertThat(new Script(with).chains())
        .filteredOn(name -> name.startsWith(NftNames.ENDPOINTS_CHAIN_PREFIX))
        .hasSize(10);
    assertThat(with).doesNotContain("192.0.2.1 . tcp . 1000 . 999");
  }

  @Test
  void aHundredPortsOfAHundredAddressesAndAThousandEndpointsStayLinear() {
    String script = render(wide(100, 100, true));

    // Per port: its 1,000 endpoints once, and a few elements per address (service-ips,
    // cluster-dispatch, four counting keys): about 1,600, where a copy per address made 102,000;
    // counting adds four keys per address, not per address and endpoint port.
    long elements = elements(script);
    assertThat(elements).isBetween(100L * ENDPOINTS, 100L * (ENDPOINTS + 7 * 101));
    assertThat(script.lines().count()).isLessThan(200_000);
    assertThat(script.length()).isLessThan(8 * 1024 * 1024);
  }

  @Test
  void aPortWithFewAddressesKeepsItsEndpointsInTheSharedMaps() {
    var small = new ArrayList<ServicePortRules>();
    small.add(
        service("tenant/np", "172.30.9.10", 80)
            .nodePort(30080)
            .cluster(remote("10.2.0.1", 8080), remote("10.2.0.2", 8080)));
    Script script = new Script(render(small));

    assertThat(script.chains()).noneMatch(c -> c.startsWith(NftNames.ENDPOINTS_CHAIN_PREFIX));
    assertThat(script.elements("lb-2")).hasSize(2);
    assertThat(script.elements("nodeport-lb-2")).hasSize(2);
  }
}
