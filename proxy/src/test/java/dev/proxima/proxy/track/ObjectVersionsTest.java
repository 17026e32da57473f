package dev.proxima.proxy.track;

import static dev.proxima.proxy.track.VersionedObjects.service;
import static dev.proxima.proxy.track.VersionedObjects.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ObjectVersionsTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");

  static List<Arguments> keysAndTheirStamps() {
    return List.of(
        Arguments.of(
            "a Service alone: its resourceVersion",
            List.of(service("web", "7")),
            List.of(),
            Map.of(WEB, "7")),
        Arguments.of(
            "its slices follow in name order, whatever order the cache lists them in",
            List.of(service("web", "7")),
            List.of(slice("web-b", "web", "12"), slice("web-a", "web", "9")),
            Map.of(WEB, "7 web-a=9 web-b=12")),
        Arguments.of(
            "slices without their Service still make a key, so the Service's arrival is a change",
            List.of(),
            List.of(slice("web-a", "web", "9")),
            Map.of(WEB, "- web-a=9")),
        Arguments.of(
            "a slice without the service-name label belongs to no key",
            List.of(service("web", "7")),
            List.of(slice("stray", null, "3")),
            Map.of(WEB, "7")),
        Arguments.of(
            "a Service without a resourceVersion cannot be stamped, slices or not",
            List.of(service("web", null)),
            List.of(slice("web-a", "web", "9")),
            mapWithNull(WEB)),
        Arguments.of(
            "nor a slice whose resourceVersion holds a blank or an equals sign",
            List.of(service("web", "7")),
            List.of(slice("web-a", "web", "9 x=1")),
            mapWithNull(WEB)),
        Arguments.of(
            "an empty resourceVersion neither",
            List.of(service("web", "7")),
            List.of(slice("web-a", "web", "")),
            mapWithNull(WEB)));
  }

  private static Map<ObjectKey, String> mapWithNull(ObjectKey key) {
    var map = new HashMap<ObjectKey, String>();
    map.put(key, null);
    return map;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keysAndTheirStamps")
  void stampsEachServiceKeyWithItsObjectsRevisions(
      String why, List<Service> services, List<EndpointSlice> slices, Map<ObjectKey, String> want) {
    assertThat(ObjectVersions.of(services, slices)).isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keysAndTheirStamps")
  void oneKeysStampIsTheSameAsInTheWholeMap(
      String why, List<Service> services, List<EndpointSlice> slices, Map<ObjectKey, String> want) {
    var service = services.isEmpty() ? null : services.get(0);
    var owned =
        slices.stream()
            .filter(s -> "web".equals(s.getMetadata().getLabels().get(Labels.SERVICE_NAME)))
            .toList();
    assertThat(ObjectVersions.stamp(service, owned)).isEqualTo(want.get(WEB));
  }

  @Test
  void nothingLeftOfAKeyHasNoStamp() {
    assertThat(ObjectVersions.stamp(null, List.of())).isNull();
  }

  /**
   * Random clusters, then one random change each: whatever the change, comparing without stamping
   * must say what stamping and comparing the maps says.
   */
  @Test
  void matchingWithoutStampingAgreesWithComparingTheStamps() {
    var random = new java.util.Random(4444);
    int unchanged = 0;
    for (int round = 0; round < 2_000; round++) {
      var services = new java.util.ArrayList<Service>();
      var slices = new java.util.ArrayList<EndpointSlice>();
      int keys = 1 + random.nextInt(4);
      for (int k = 0; k < keys; k++) {
        var name = "svc" + k;
        if (random.nextInt(5) > 0) {
          services.add(service(name, String.valueOf(random.nextInt(3) + 1)));
        }
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
          // Names that prefix one another: web-1 and web-10.
          slices.add(
              slice(name + "-1" + "0".repeat(i), name, String.valueOf(random.nextInt(3) + 1)));
        }
      }
      var saved = ObjectVersions.of(services, slices);
      saved.values().removeIf(java.util.Objects::isNull);
      mutate(random, services, slices);

      var expected = ObjectVersions.of(services, slices).equals(saved);
      assertThat(new ObjectVersions.Snapshot(services, slices).matches(saved))
          .as("round %d: %s %s against %s", round, services, slices, saved)
          .isEqualTo(expected);
      unchanged += expected ? 1 : 0;
    }
    assertThat(unchanged).as("both outcomes are tried").isBetween(100, 1_900);
  }

  private static void mutate(
      java.util.Random random, List<Service> services, List<EndpointSlice> slices) {
    switch (random.nextInt(9)) {
      case 0 -> {} // nothing
      case 1 -> {
        if (!services.isEmpty()) {
          services.remove(random.nextInt(services.size()));
        }
      }
      case 2 -> {
        // A cache holds one object of a name.
        var name = "svc" + random.nextInt(5);
        if (services.stream().noneMatch(s -> s.getMetadata().getName().equals(name))) {
          services.add(service(name, "1"));
        }
      }
      case 3 -> {
        if (!slices.isEmpty()) {
          slices.remove(random.nextInt(slices.size()));
        }
      }
      case 4 -> {
        var name = "svc" + random.nextInt(5) + "-19";
        if (slices.stream().noneMatch(s -> s.getMetadata().getName().equals(name))) {
          slices.add(slice(name, "svc" + random.nextInt(5), "1"));
        }
      }
      case 5 -> {
        if (!services.isEmpty()) {
          var s = services.get(random.nextInt(services.size()));
          s.getMetadata().setResourceVersion(random.nextBoolean() ? "9" : "1");
        }
      }
      case 6 -> {
        if (!slices.isEmpty()) {
          var s = slices.get(random.nextInt(slices.size()));
          s.getMetadata().setResourceVersion(random.nextBoolean() ? "9" : "1" + "0");
        }
      }
      case 7 -> {
        if (!slices.isEmpty()) {
          var s = slices.get(random.nextInt(slices.size()));
          s.getMetadata().getLabels().put(Labels.SERVICE_NAME, "svc" + random.nextInt(5));
        }
      }
      default -> {
        if (!services.isEmpty()) {
          services.get(random.nextInt(services.size())).getMetadata().setResourceVersion(null);
        }
      }
    }
  }

  @Test
  void aSnapshotThatMatchedOneFamilysStampsStillChecksAnotherFamilysThatDiffer() {
    var services = List.of(service("web", "7"));
    var slices = List.of(slice("web-a", "web", "9"));
    var snapshot = new ObjectVersions.Snapshot(services, slices);

    assertThat(snapshot.matches(Map.of(WEB, "7 web-a=9"))).isTrue();
    assertThat(snapshot.matches(new HashMap<>(Map.of(WEB, "7 web-a=9")))).isTrue();
    assertThat(snapshot.matches(Map.of(WEB, "7 web-a=8"))).isFalse();
    assertThat(snapshot.matches(Map.of(WEB, "7"))).isFalse();
  }

  @Test
  void aSnapshotRemembersItsLastComparisonForEqualStampsOnly() {
    var snapshot =
        new ObjectVersions.Snapshot(
            List.of(service("web", "7")), List.of(slice("web-a", "web", "9")));
    assertThat(snapshot.comparedBefore(Map.of(WEB, "7 web-a=8"))).isEmpty();

    assertThat(snapshot.matches(Map.of(WEB, "7 web-a=8"))).isFalse();

    assertThat(snapshot.comparedBefore(new HashMap<>(Map.of(WEB, "7 web-a=8")))).contains(false);
    assertThat(snapshot.comparedBefore(Map.of(WEB, "7 web-a=9"))).isEmpty();
    assertThat(snapshot.changedKeys(Map.of(WEB, "7 web-a=8"))).isEqualTo(1);
    assertThat(snapshot.matches(Map.of(WEB, "7 web-a=9"))).isTrue();
    assertThat(snapshot.comparedBefore(Map.of(WEB, "7 web-a=9"))).contains(true);
  }

  @Test
  void aKeyWithManySlicesIsComparedByNameAsOneWithFew() {
    var slices = new java.util.ArrayList<EndpointSlice>();
    for (int i = 0; i < 60; i++) {
      slices.add(slice("web-" + "x".repeat(40) + "-" + i, "web", String.valueOf(100 + i)));
    }
    var services = List.of(service("web", "7"));
    var saved = ObjectVersions.of(services, slices);
    assertThat(saved.get(WEB)).hasSizeGreaterThan(ObjectVersions.SCANNED_STAMP_LENGTH);

    assertThat(new ObjectVersions.Snapshot(services, slices).matches(saved)).isTrue();

    var rewritten = new java.util.ArrayList<>(slices);
    rewritten.set(33, slice("web-" + "x".repeat(40) + "-33", "web", "999"));
    assertThat(new ObjectVersions.Snapshot(services, rewritten).matches(saved)).isFalse();
    var fewer = slices.subList(1, slices.size());
    assertThat(new ObjectVersions.Snapshot(services, fewer).matches(saved)).isFalse();
    var renamed = new java.util.ArrayList<>(slices);
    renamed.set(5, slice("web-" + "x".repeat(40) + "-5b", "web", "105"));
    assertThat(new ObjectVersions.Snapshot(services, renamed).matches(saved)).isFalse();
  }

  /** 3,000 Services with one slice each: several chunks of slices to share. */
  private static List<Service> manyServices() {
    var services = new java.util.ArrayList<Service>();
    for (int i = 0; i < 3_000; i++) {
      services.add(service("svc" + i, String.valueOf(10 + i)));
    }
    return services;
  }

  private static List<EndpointSlice> sliceEach(List<Service> services) {
    var slices = new java.util.ArrayList<EndpointSlice>();
    for (var service : services) {
      var name = service.getMetadata().getName();
      slices.add(slice(name + "-a", name, "5" + name.substring(3)));
    }
    return slices;
  }

  @Test
  void aComparisonSharedWithAnotherThreadFindsWhatOneThreadFinds() throws Exception {
    var services = manyServices();
    var slices = sliceEach(services);
    var saved = ObjectVersions.of(services, slices);
    var rewritten = new java.util.ArrayList<>(slices);
    rewritten.set(2_500, slice("svc2500-a", "svc2500", "999"));
    var missing = slices.subList(0, slices.size() - 1);

    var threads = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      for (var candidate : List.of(slices, rewritten, missing)) {
        var expected = ObjectVersions.of(services, candidate).equals(saved);
        var comparison =
            new ObjectVersions.Snapshot(services, candidate)
                .comparing(ObjectVersions.Saved.of(saved));
        var beside = threads.submit(comparison::sharedSlices);
        assertThat(comparison.matches(() -> joined(beside))).isEqualTo(expected);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(new ObjectVersions.Snapshot(services, slices).matches(saved)).isTrue();
    assertThat(new ObjectVersions.Snapshot(services, rewritten).matches(saved)).isFalse();
    assertThat(new ObjectVersions.Snapshot(services, missing).matches(saved)).isFalse();
  }

  @Test
  void eitherShareMayTakeEverySliceAndTheOutcomeIsTheSame() {
    var services = manyServices();
    var slices = sliceEach(services);
    var saved = ObjectVersions.of(services, slices);

    var besideFirst =
        new ObjectVersions.Snapshot(services, slices).comparing(ObjectVersions.Saved.of(saved));
    int found = besideFirst.sharedSlices();
    assertThat(found).as("the other thread took every slice").isEqualTo(slices.size());
    assertThat(besideFirst.matches(() -> found)).isTrue();

    var callerAlone =
        new ObjectVersions.Snapshot(services, slices).comparing(ObjectVersions.Saved.of(saved));
    assertThat(callerAlone.matches(() -> 0)).isTrue();

    var besideLast =
        new ObjectVersions.Snapshot(services, slices).comparing(ObjectVersions.Saved.of(saved));
    assertThat(besideLast.matches(besideLast::sharedSlices))
        .as("a share that starts when every chunk is taken finds none")
        .isTrue();
  }

  @Test
  void aCancelledComparisonTakesNoFurtherSlices() {
    var services = manyServices();
    var comparison =
        new ObjectVersions.Snapshot(services, sliceEach(services))
            .comparing(ObjectVersions.Saved.of(ObjectVersions.of(services, sliceEach(services))));
    comparison.cancel();
    assertThat(comparison.sharedSlices()).isZero();
  }

  @Test
  void aComparisonDecidedBeforeComparesNothing() {
    var services = List.of(service("web", "7"));
    var slices = List.of(slice("web-a", "web", "9"));
    var snapshot = new ObjectVersions.Snapshot(services, slices);
    assertThat(snapshot.comparing(ObjectVersions.Saved.of(Map.of(WEB, "7 web-a=9"))).decided())
        .isFalse();
    assertThat(snapshot.matches(Map.of(WEB, "7 web-a=9"))).isTrue();

    var again =
        snapshot.comparing(ObjectVersions.Saved.of(new HashMap<>(Map.of(WEB, "7 web-a=9"))));
    assertThat(again.decided()).isTrue();
    assertThat(again.sharedSlices()).isZero();
    assertThat(again.matches(() -> -1)).as("the remembered outcome").isTrue();
  }

  @Test
  void theVeryStampsComparedBeforeAreKnownWithoutReadingThem() {
    var snapshot =
        new ObjectVersions.Snapshot(
            List.of(service("web", "7")), List.of(slice("web-a", "web", "9")));
    var read = new CountingMap(Map.of(WEB, "7 web-a=9"));
    var saved = ObjectVersions.Saved.of(read);
    assertThat(snapshot.comparing(saved).matches(() -> 0)).isTrue();

    read.equalsCalls = 0;
    var again = snapshot.comparing(saved);

    assertThat(again.decided()).isTrue();
    assertThat(read.equalsCalls).as("compared by reference, not entry by entry").isZero();
  }

  @Test
  void savedStampsAreCountedWhenMadeAndAnEmptyStampMatchesNothing() {
    var saved =
        ObjectVersions.Saved.of(
            Map.of(WEB, "7 web-a=9 web-b=3", new ObjectKey("shop", "gone"), "- gone-a=4"));
    assertThat(saved.services()).isEqualTo(1);
    assertThat(saved.slices()).isEqualTo(3);

    var broken = new HashMap<ObjectKey, String>(Map.of(WEB, "7 web-a=9"));
    broken.put(new ObjectKey("shop", "odd"), "");
    assertThat(ObjectVersions.Saved.of(broken).services()).isEqualTo(-1);
    var snapshot =
        new ObjectVersions.Snapshot(
            List.of(service("web", "7")), List.of(slice("web-a", "web", "9")));
    assertThat(snapshot.matches(broken)).isFalse();
  }

  /** A map that counts how often it is asked to compare itself with another. */
  private static final class CountingMap extends HashMap<ObjectKey, String> {
    int equalsCalls;

    CountingMap(Map<ObjectKey, String> entries) {
      super(entries);
    }

    @Override
    public boolean equals(Object other) {
      equalsCalls++;
      return super.equals(other);
    }

    @Override
    public int hashCode() {
      return super.hashCode();
    }
  }

  private static int joined(java.util.concurrent.Future<Integer> share) {
    try {
      return share.get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
