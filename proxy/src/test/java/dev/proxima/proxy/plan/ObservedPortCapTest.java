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
}
