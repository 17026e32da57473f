package dev.proxima.proxy.plan;

import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.ServiceOrigin;
import dev.proxima.proxy.model.ServicePort;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressOwnersTest {
  private static ServicePort withOrigin(ServicePort port, String created, String uid) {
    return new ServicePort(
        port.name(),
        port.clusterIp(),
        port.port(),
        port.nodePort(),
        port.externalIps(),
        port.loadBalancerIps(),
        port.loadBalancerSourceRanges(),
        port.restrictSources(),
        port.stickyTimeout(),
        port.internalTrafficLocal(),
        port.externalTrafficLocal(),
        port.healthCheckNodePort(),
        port.trafficDistribution(),
        new ServiceOrigin(created == null ? null : Instant.parse(created), uid),
        port.observeLocality(),
        null);
  }

  @Test
  void aPortThatOwnsEveryKeyComesBackUnchanged() {
    var web = service("shop/web", "10.96.0.10", 80).externalIps("192.0.2.1").build();

    assertThat(AddressOwners.of(List.of(web)).effective(web)).isSameAs(web);
  }

  @Test
  void aClusterIpBeatsALoadBalancerIpWhichBeatsAnExternalIp() {
    var cluster = service("zz/cluster", "10.96.0.10", 80).build();
    var balancer = service("mm/lb", "10.96.0.20", 80).loadBalancerIps("10.96.0.10").build();
    var external = service("aa/ext", "10.96.0.30", 80).externalIps("10.96.0.10").build();

    var owners = AddressOwners.of(List.of(external, balancer, cluster));

    assertThat(owners.effective(cluster)).isSameAs(cluster);
    assertThat(owners.effective(balancer).loadBalancerIps()).isEmpty();
    assertThat(owners.effective(external).externalIps()).isEmpty();
    assertThat(owners.collisions())
        .extracting(c -> c.winner().service().name() + ">" + c.loser().service().name())
        .containsExactly("cluster>lb", "cluster>ext");
  }

  @Test
  void withinAClassTheOlderServiceWinsThenTheSmallerUidNeverTheName() {
    var older =
        withOrigin(
            service("zz/old", "10.96.0.10", 80).externalIps("192.0.2.1").build(),
            "2020-01-01T00:00:00Z",
            "b");
    var newer =
        withOrigin(
            service("aa/new", "10.96.0.20", 80).externalIps("192.0.2.1").build(),
            "2024-01-01T00:00:00Z",
            "a");
    var sameTimeLargerUid =
        withOrigin(
            service("mm/twin", "10.96.0.30", 80).externalIps("192.0.2.1").build(),
            "2020-01-01T00:00:00Z",
            "c");

    var owners = AddressOwners.of(List.of(newer, sameTimeLargerUid, older));

    assertThat(owners.effective(older).externalIps()).containsExactly("192.0.2.1");
    assertThat(owners.effective(newer).externalIps()).isEmpty();
    assertThat(owners.effective(sameTimeLargerUid).externalIps()).isEmpty();
  }

  @Test
  void anotherServicesClusterIpIsRefusedAsAnExternalIpAtEveryPort() {
    var web = service("shop/web", "10.96.0.10", 80).build();
    var otherPort = service("evil/a", "10.96.0.20", 443).externalIps("10.96.0.10").build();

    var owners = AddressOwners.of(List.of(web, otherPort));

    assertThat(owners.effective(otherPort).externalIps()).isEmpty();
    assertThat(owners.collisions())
        .singleElement()
        .asString()
        .isEqualTo(
            "10.96.0.10 any port: externalIP of evil/a collides with the clusterIP of shop/web;"
                + " shop/web keeps it");
  }

  @Test
  void aClusterIpThatGoesHandsItsAddressBackToTheExternalIpAtAnotherPort() {
    var web = service("shop/web", "10.96.0.10", 80).build();
    var otherPort = service("evil/a", "10.96.0.20", 443).externalIps("10.96.0.10").build();
    var owners = AddressOwners.of(List.of(web, otherPort));

    var affected = owners.put(web.name().service(), List.of(web), List.of());

    assertThat(affected).contains(otherPort.name().service());
    assertThat(owners.effective(otherPort)).isSameAs(otherPort);
    assertThat(owners.collisions()).isEmpty();
  }

  @Test
  void aPortThatLosesItsClusterIpIsNotProgrammed() {
    var first = withOrigin(service("a/one", "10.96.0.10", 80).build(), null, "1");
    var second = withOrigin(service("b/two", "10.96.0.10", 80).build(), null, "2");

    var owners = AddressOwners.of(List.of(second, first));

    assertThat(owners.effective(first)).isSameAs(first);
    assertThat(owners.effective(second)).isNull();
  }

  @Test
  void putNamesEveryServiceWhoseOutcomeMayChangeAndHandsTheKeyBack() {
    var web = service("good/web", "10.96.0.10", 80).build();
    var squatter = service("evil/a", "10.96.0.20", 80).externalIps("10.96.0.10").build();
    var owners = new AddressOwners();
    owners.put(ObjectKey.parse("evil/a"), List.of(), List.of(squatter));

    assertThat(owners.put(ObjectKey.parse("good/web"), List.of(), List.of(web)))
        .containsExactlyInAnyOrder(ObjectKey.parse("good/web"), ObjectKey.parse("evil/a"));
    assertThat(owners.effective(squatter).externalIps()).isEmpty();

    assertThat(owners.put(ObjectKey.parse("good/web"), List.of(web), List.of()))
        .contains(ObjectKey.parse("evil/a"));
    assertThat(owners.effective(squatter)).isSameAs(squatter);
    assertThat(owners.collisions()).isEmpty();
  }
}
