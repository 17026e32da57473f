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
    assertThat(cap.counted(portOf("ns", "a", "2"))).isFalse();
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

  /**
   * The fair choice spelled out the slow way: each namespace's ports ranked round-robin across its
   * Services, then the first {@code maxPorts} by (rank, namespace, name).
   */
  private static java.util.Set<ServicePortName> roundRobin(
      java.util.Collection<ServicePortName> wanted, int maxPorts) {
    var byNamespace = new TreeMap<String, TreeMap<ObjectKey, List<ServicePortName>>>();
    for (var name : new java.util.TreeSet<>(wanted)) {
      byNamespace
          .computeIfAbsent(name.service().namespace(), k -> new TreeMap<>())
          .computeIfAbsent(name.service(), k -> new ArrayList<>())
          .add(name);
    }
    record Ranked(int rank, String namespace, ServicePortName name) {}
    var ranked = new ArrayList<Ranked>();
    byNamespace.forEach(
        (namespace, services) -> {
          int rank = 0;
          for (int round = 0; ; round++) {
            boolean any = false;
            for (var ports : services.values()) {
              if (round < ports.size()) {
                ranked.add(new Ranked(rank++, namespace, ports.get(round)));
                any = true;
              }
            }
            if (!any) {
              break;
            }
          }
        });
    ranked.sort(
        java.util.Comparator.comparingInt(Ranked::rank)
            .thenComparing(Ranked::namespace)
            .thenComparing(Ranked::name));
    var counted = new java.util.HashSet<ServicePortName>();
    for (int i = 0; i < Math.min(maxPorts, ranked.size()); i++) {
      counted.add(ranked.get(i).name());
    }
    return counted;
  }

  @Test
  void countsWhatTheRoundRobinSpelledOutCountsAfterEveryStepOfAChurn() {
    for (long seed : new long[] {1, 2, 3, 20261207L}) {
      var random = new Random(seed);
      int maxPorts = 1 + random.nextInt(12);
      var cap = new ObservedPortCap(ObserveLocality.ALL, 4 * maxPorts);
      var wanted = new java.util.TreeSet<ServicePortName>();
      var countedBefore = new java.util.HashSet<ServicePortName>();
      for (int step = 0; step < 600; step++) {
        var port =
            portOf("ns" + random.nextInt(5), "s" + random.nextInt(4), "p" + random.nextInt(4));
        boolean want = random.nextInt(5) > 1;
        var flipped = cap.want(port, want);
        if (want) {
          wanted.add(port);
        } else {
          wanted.remove(port);
        }

        var expected = roundRobin(wanted, maxPorts);
        var expectedFlips = new java.util.HashSet<ServicePortName>();
        for (var name : wanted) {
          assertThat(cap.counted(name))
              .as("seed %d step %d %s", seed, step, name)
              .isEqualTo(expected.contains(name));
          if (!name.equals(port) && countedBefore.contains(name) != expected.contains(name)) {
            expectedFlips.add(name);
          }
        }
        assertThat(flipped).as("seed %d step %d", seed, step).isEqualTo(expectedFlips);
        assertThat(cap.dropped()).isEqualTo(wanted.size() - expected.size());
        countedBefore = new java.util.HashSet<>(expected);
      }
    }
  }

  /**
   * A sync that brings P ports and then takes them away again, one by one, in the two shapes a
   * tenant can choose: all in one namespace, or one per namespace. Each change costs O(log P)
   * comparisons, never a walk over the namespace or over the counted ports.
   */
  @Test
  void aSyncOfPChangesCostsOrderPLogPComparisonsWhateverTheShape() {
    int ports = 20_000;
    double logP = Math.log(ports) / Math.log(2);
    for (boolean oneNamespace : new boolean[] {true, false}) {
      var cap = new ObservedPortCap(ObserveLocality.ALL, 4 * ports / 2);
      var names = new ArrayList<ServicePortName>();
      for (int i = 0; i < ports; i++) {
        names.add(
            oneNamespace
                ? portOf("tenant", "s" + i % 100, "p" + i / 100)
                : portOf("ns" + i, "s", "p"));
      }
      java.util.Collections.shuffle(names, new Random(7));

      long before = cap.comparisons();
      names.forEach(name -> cap.want(name, true));
      assertThat(cap.dropped()).isEqualTo(ports / 2);
      names.forEach(name -> cap.want(name, false));
      long comparisons = cap.comparisons() - before;

      assertThat(comparisons)
          .as("one namespace: %s", oneNamespace)
          .isLessThan((long) (30 * 2 * ports * logP));
      assertThat(cap.dropped()).isZero();
    }
  }
}
