package dev.proxima.proxy.track;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PendingChangesTriggerTimesTest {
  private static final Instant STARTED = Instant.parse("2026-01-01T10:00:00Z");
  private static final ObjectKey KEY = new ObjectKey("ns", "web-1");

  private final PendingChanges tracker = new PendingChanges(STARTED);

  private static EndpointSlice slice(String addressType, String triggerTime, String... addresses) {
    var builder = new EndpointSliceBuilder(ApiObjects.slice("ns", "web", addresses));
    builder.withAddressType(addressType);
    if (triggerTime != null) {
      builder
          .editMetadata()
          .addToAnnotations(Annotations.LAST_CHANGE_TRIGGER_TIME, triggerTime)
          .endMetadata();
    }
    return builder.build();
  }

  static Stream<Arguments> triggerTimes() {
    return Stream.of(
        Arguments.of(
            "a change after the start keeps its time",
            "IPv4",
            "2026-01-01T10:00:05Z",
            IpFamily.IPV4,
            List.of(Instant.parse("2026-01-01T10:00:05Z"))),
        Arguments.of(
            "an IPv6 slice's time goes to the IPv6 family",
            "IPv6",
            "2026-01-01T10:00:05Z",
            IpFamily.IPV6,
            List.of(Instant.parse("2026-01-01T10:00:05Z"))),
        Arguments.of(
            "an IPv6 slice's time is not the IPv4 family's",
            "IPv6",
            "2026-01-01T10:00:05Z",
            IpFamily.IPV4,
            List.of()),
        Arguments.of(
            "a change triggered before the start is its predecessor's",
            "IPv4",
            "2026-01-01T09:59:59Z",
            IpFamily.IPV4,
            List.of()),
        Arguments.of(
            "a slice without the annotation has no time", "IPv4", null, IpFamily.IPV4, List.of()),
        Arguments.of(
            "an FQDN slice belongs to no family",
            "FQDN",
            "2026-01-01T10:00:05Z",
            IpFamily.IPV4,
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("triggerTimes")
  void recordsTheTriggerTimeOfAPendingChangePerFamily(
      String name, String addressType, String time, IpFamily family, List<Instant> expected) {
    assertThat(tracker.sliceChanged(KEY, null, slice(addressType, time, "10.0.0.1"))).isEmpty();

    assertThat(tracker.drainTriggerTimes(family)).isEqualTo(expected);
  }

  @Test
  void aMalformedTimeIsHandedBackForTheCallerToReportAndNotRecorded() {
    assertThat(tracker.sliceChanged(KEY, null, slice("IPv4", "yesterday", "10.0.0.1")))
        .contains("yesterday");

    assertThat(tracker.drainTriggerTimes(IpFamily.IPV4)).isEmpty();
    assertThat(tracker.pendingSlices()).isEqualTo(1);
  }

  @Test
  void anUpdateThatChangesNothingTheProxyUsesRecordsNoTime() {
    var before = slice("IPv4", null, "10.0.0.1");
    tracker.sliceChanged(KEY, null, before);
    tracker.drainChangedServices();

    tracker.sliceChanged(KEY, before, slice("IPv4", "2026-01-01T10:00:05Z", "10.0.0.1"));

    assertThat(tracker.pendingSlices()).isZero();
    assertThat(tracker.drainTriggerTimes(IpFamily.IPV4)).isEmpty();
  }

  @Test
  void aDeletionIsPendingButHasNoTimeOfItsOwn() {
    var slice = slice("IPv4", "2026-01-01T10:00:05Z", "10.0.0.1");
    tracker.sliceChanged(KEY, null, slice);
    tracker.drainChangedServices();
    tracker.drainTriggerTimes(IpFamily.IPV4);

    tracker.sliceChanged(KEY, slice, null);

    assertThat(tracker.drainChangedServices()).containsExactly(new ObjectKey("ns", "web"));
    assertThat(tracker.drainTriggerTimes(IpFamily.IPV4)).isEmpty();
  }

  @Test
  void drainingHandsTheTimesOverOnce() {
    tracker.sliceChanged(KEY, null, slice("IPv4", "2026-01-01T10:00:05Z", "10.0.0.1"));
    tracker.sliceChanged(
        KEY, slice("IPv4", null, "10.0.0.1"), slice("IPv4", "2026-01-01T10:00:07Z", "10.0.0.2"));

    assertThat(tracker.drainTriggerTimes(IpFamily.IPV4))
        .containsExactly(
            Instant.parse("2026-01-01T10:00:05Z"), Instant.parse("2026-01-01T10:00:07Z"));
    assertThat(tracker.drainTriggerTimes(IpFamily.IPV4)).isEmpty();
  }
}
