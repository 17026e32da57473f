package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.metrics.ObservedServicePorts;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ObservedPortCapTest {
  private static ServicePortName name(String service) {
    return new ServicePortName(ObjectKey.parse("ns/" + service), "", Protocol.TCP);
  }

  private static ServicePort port(String service, boolean optedIn) {
    var svc = ServicePortFixtures.service("ns/" + service, "10.96.0.10", 80);
    return (optedIn ? svc.observeLocality() : svc).build();
  }

  @Test
  void aPortBeforeTheLastCountedOnePushesThatOneOutAndOnlyThatOne() {
    var cap = new ObservedPortCap(ObserveLocality.ANNOTATED, 8); // two ports
    cap.want(name("b"), true);
    cap.want(name("d"), true);

    assertThat(cap.want(name("a"), true)).containsExactly(name("d"));
    assertThat(cap.counted(name("a"))).isTrue();
    assertThat(cap.counted(name("d"))).isFalse();
    assertThat(cap.want(name("e"), true)).isEmpty();
    assertThat(cap.dropped()).isEqualTo(2);
  }

  @Test
  void aCountedPortThatGoesLetsTheFirstLeftOutIn() {
    var cap = new ObservedPortCap(ObserveLocality.ANNOTATED, 8);
    for (var service : List.of("a", "b", "c", "d")) {
      cap.want(name(service), true);
    }

    assertThat(cap.want(name("a"), false)).containsExactly(name("c"));
    assertThat(cap.want(name("d"), false)).isEmpty();
    assertThat(cap.counted(name("c"))).isTrue();
    assertThat(cap.dropped()).isZero();
  }

  @Test
  void wantsFollowTheMode() {
    assertThat(new ObservedPortCap(ObserveLocality.ANNOTATED, 4).wants(port("a", false))).isFalse();
    assertThat(new ObservedPortCap(ObserveLocality.ANNOTATED, 4).wants(port("a", true))).isTrue();
    assertThat(new ObservedPortCap(ObserveLocality.ALL, 4).wants(port("a", false))).isTrue();
    assertThat(new ObservedPortCap(ObserveLocality.OFF, 4).wants(port("a", true))).isFalse();
  }

  @Test
  void aCapBelowOnePortsSeriesCountsNothing() {
    var cap = new ObservedPortCap(ObserveLocality.ALL, 3);

    assertThat(cap.want(name("a"), true)).isEmpty();
    assertThat(cap.counted(name("a"))).isFalse();
    assertThat(cap.dropped()).isEqualTo(1);
  }

  /**
   * Ports coming and going in a fixed pseudo-random order: after every step the cap counts exactly
   * what choosing afresh from all ports counts, and the ports it reports as flipped are exactly the
   * other ports whose counting changed.
   */
  @Test
  void agreesWithAFreshChoiceAfterEveryStepOfAChurn() {
    var random = new Random(20261124L);
    var cap = new ObservedPortCap(ObserveLocality.ANNOTATED, 12); // three ports
    var ports = new TreeMap<ServicePortName, ServicePort>();
    for (int step = 0; step < 300; step++) {
      var service = "s" + random.nextInt(12);
      var name = name(service);
      var before = ObservedServicePorts.choose(ObserveLocality.ANNOTATED, 12, ports.values());
      boolean wanted;
      if (random.nextInt(3) == 0) {
        ports.remove(name);
        wanted = false;
      } else {
        var port = port(service, random.nextBoolean());
        ports.put(name, port);
        wanted = cap.wants(port);
      }

      var flipped = cap.want(name, wanted);

      var after = ObservedServicePorts.choose(ObserveLocality.ANNOTATED, 12, ports.values());
      var expectedFlips = new ArrayList<ServicePortName>();
      for (var other : ports.keySet()) {
        if (!other.equals(name)
            && before.counted().contains(other) != after.counted().contains(other)) {
          expectedFlips.add(other);
        }
      }
      for (var other : ports.keySet()) {
        assertThat(cap.counted(other))
            .as("%s at step %d", other, step)
            .isEqualTo(after.counted().contains(other));
      }
      assertThat(flipped).as("step %d", step).containsExactlyInAnyOrderElementsOf(expectedFlips);
      assertThat(cap.dropped()).isEqualTo(after.dropped());
    }
  }

  private static ServicePortName portOf(String namespace, String service, String port) {
    return new ServicePortName(new ObjectKey(namespace, service), port, Protocol.TCP);
  }

  @Test
  void aThousandPortServiceInTheFirstNamespaceCannotTakeTheWholeCap() {
    var cap = new ObservedPortCap(ObserveLocality.ALL, 4000); // a thousand ports
    var wanted = new ArrayList<ServicePortName>();
    for (int i = 0; i < 1000; i++) {
      wanted.add(portOf("aaa", "greedy", String.format("p%04d", i)));
    }
    for (int n = 0; n < 50; n++) {
      wanted.add(portOf("tenant-" + n, "web", "http"));
    }

    cap.wantAll(wanted);

    for (int n = 0; n < 50; n++) {
      assertThat(cap.counted(portOf("tenant-" + n, "web", "http"))).as("tenant-" + n).isTrue();
    }
    assertThat(cap.dropped()).isEqualTo(50);
  }

  @Test
  void withinANamespaceEveryServicesFirstPortComesBeforeAnySecond() {
    var cap = new ObservedPortCap(ObserveLocality.ALL, 4 * 3);
    cap.wantAll(
        List.of(
            portOf("ns", "a", "1"),
            portOf("ns", "a", "2"),
            portOf("ns", "a", "3"),
            portOf("ns", "b", "1"),
            portOf("ns", "c", "1")));

    assertThat(cap.counted(portOf("ns", "a", "1"))).isTrue();
    assertThat(cap.counted(portOf("ns", "b", "1"))).isTrue();
    assertThat(cap.counted(portOf("ns", "c", "1"))).isTrue();
    assertThat(cap.leftOut(portOf("ns", "a", "2"))).isTrue();
  }

  @Test
  void portByPortChangesReachTheSameChoiceAsAFullSyncAndNameEveryFlip() {
    var random = new Random(3);
    var incremental = new ObservedPortCap(ObserveLocality.ALL, 4 * 7);
    var wanted = new java.util.TreeSet<ServicePortName>();
    var countedNow = new java.util.HashSet<ServicePortName>();
    for (int step = 0; step < 400; step++) {
      var port = portOf("ns" + random.nextInt(4), "s" + random.nextInt(4), "p" + random.nextInt(3));
      boolean want = random.nextInt(3) > 0;
      var flipped = incremental.want(port, want);
      if (want) {
        wanted.add(port);
      } else {
        wanted.remove(port);
      }
      var full = new ObservedPortCap(ObserveLocality.ALL, 4 * 7);
      full.wantAll(wanted);
      for (var name : wanted) {
        assertThat(incremental.counted(name)).isEqualTo(full.counted(name));
      }
      // Every port whose counting changed, other than the one changed, was named.
      for (var name : wanted) {
        if (!name.equals(port) && countedNow.contains(name) != incremental.counted(name)) {
          assertThat(flipped).contains(name);
        }
      }
      countedNow.clear();
      wanted.stream().filter(incremental::counted).forEach(countedNow::add);
    }
  }
}
