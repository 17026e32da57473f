package dev.proxima.proxy.track;

import dev.proxima.model.Annotations;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pending EndpointSlice changes together with when each was triggered: a slice change that a
 * sync must take in also brings the {@code endpoints.kubernetes.io/last-change-trigger-time} of the
 * slice, kept per IP family until that family's sync hands it to the network programming latency.
 * Logging is left to the caller, which is told about a malformed time.
 */
public final class EndpointSliceChangeTracker {
  private final ChangeTracker<ObjectKey, EndpointSlice, Projections.SliceProjection> changes =
      new ChangeTracker<>(Projections::of);
  private final Map<IpFamily, List<Instant>> triggerTimes = new EnumMap<>(IpFamily.class);
  private final Instant startedAt;

  /**
   * @param startedAt when this proxy started: changes triggered before then were programmed by its
   *     predecessor, so their times are ignored
   */
  public EndpointSliceChangeTracker(Instant startedAt) {
    this.startedAt = startedAt;
  }

  /**
   * Records a change; {@code previous} or {@code current} is null for an add or a delete.
   *
   * @return the slice's trigger time as written when it is not a time, for the caller to report;
   *     empty otherwise
   */
  public synchronized Optional<String> update(
      ObjectKey key, EndpointSlice previous, EndpointSlice current) {
    boolean pending = changes.update(key, previous, current);
    if (!pending || current == null) {
      return Optional.empty();
    }
    return recordTriggerTime(current);
  }

  public int pendingCount() {
    return changes.pendingCount();
  }

  /** Hands over every pending slice change and starts afresh; trigger times stay per family. */
  public Map<ObjectKey, ChangeTracker.Change<Projections.SliceProjection>> drain() {
    return changes.drain();
  }

  /** Hands over the trigger times recorded for {@code family} since its last drain. */
  public synchronized List<Instant> drainTriggerTimes(IpFamily family) {
    var drained = triggerTimes.remove(family);
    return drained == null ? List.of() : drained;
  }

  private Optional<String> recordTriggerTime(EndpointSlice slice) {
    var annotations = slice.getMetadata().getAnnotations();
    var value = annotations == null ? null : annotations.get(Annotations.LAST_CHANGE_TRIGGER_TIME);
    var family = familyOf(slice.getAddressType());
    if (value == null || family == null) {
      return Optional.empty();
    }
    Instant time;
    try {
      time = Instant.parse(value);
    } catch (DateTimeParseException malformed) {
      return Optional.of(value);
    }
    if (time.isAfter(startedAt)) {
      triggerTimes.computeIfAbsent(family, f -> new ArrayList<>()).add(time);
    }
    return Optional.empty();
  }

  /** The family of a slice's addresses; null for FQDN slices, which the proxy does not program. */
  private static IpFamily familyOf(String addressType) {
    if ("IPv4".equals(addressType)) {
      return IpFamily.IPV4;
    }
    return "IPv6".equals(addressType) ? IpFamily.IPV6 : null;
  }
}
