package dev.proxima.proxy.track;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Service and EndpointSlice changes no sync has taken in yet: the informers' handlers feed it,
 * the sync runner drains the Services to re-plan, and each family's sync drains the trigger times
 * its slices' changes brought, for the network programming latency.
 */
public final class PendingChanges {
  private final ChangeTracker<ObjectKey, Service, Projections.ServiceProjection> services =
      new ChangeTracker<>(Projections::of);
  private final ChangeTracker<ObjectKey, EndpointSlice, Projections.SliceProjection> slices =
      new ChangeTracker<>(Projections::of);
  private final Map<IpFamily, List<Instant>> triggerTimes = new EnumMap<>(IpFamily.class);
  private final Instant startedAt;
  private final Set<ObjectKey> touched = new HashSet<>();

  /** Changes triggered before {@code startedAt} were programmed by a predecessor: not timed. */
  public PendingChanges(Instant startedAt) {
    this.startedAt = startedAt;
  }

  /** Returns how many Services have changes pending. */
  public int serviceChanged(ObjectKey key, Service previous, Service current) {
    services.update(key, previous, current);
    return services.pendingCount();
  }

  /**
   * Returns the slice's trigger-time annotation when it is not a time, for the caller to report.
   */
  public synchronized Optional<String> sliceChanged(
      ObjectKey key, EndpointSlice previous, EndpointSlice current) {
    if (!slices.update(key, previous, current) || current == null) {
      return Optional.empty();
    }
    var annotations = current.getMetadata().getAnnotations();
    var value = annotations == null ? null : annotations.get(Annotations.LAST_CHANGE_TRIGGER_TIME);
    // FQDN slices have no family: the proxy does not program them.
    var family =
        switch (String.valueOf(current.getAddressType())) {
          case "IPv4" -> IpFamily.IPV4;
          case "IPv6" -> IpFamily.IPV6;
          default -> null;
        };
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

  /**
   * Services to plan again though they did not change, such as those a new zone demand concerns.
   */
  public synchronized void touched(Collection<ObjectKey> keys) {
    touched.addAll(keys);
  }

  public int pendingServices() {
    return services.pendingCount() + touchedCount();
  }

  private synchronized int touchedCount() {
    return touched.size();
  }

  public int pendingSlices() {
    return slices.pendingCount();
  }

  /** The Services whose own or whose slices' changes are pending; starts afresh. */
  public Set<ObjectKey> drainChangedServices() {
    var changed = new HashSet<>(services.drain().keySet());
    synchronized (this) {
      changed.addAll(touched);
      touched.clear();
    }
    slices
        .drain()
        .forEach(
            (slice, change) -> {
              for (var projection :
                  new Projections.SliceProjection[] {change.previous(), change.current()}) {
                var labels = projection == null ? null : projection.labels();
                var name = labels == null ? null : labels.get(Labels.SERVICE_NAME);
                if (name != null && !name.isEmpty()) {
                  changed.add(new ObjectKey(slice.namespace(), name));
                }
              }
            });
    return changed;
  }

  /** For the family's network programming latency. */
  public synchronized List<Instant> drainTriggerTimes(IpFamily family) {
    var drained = triggerTimes.remove(family);
    return drained == null ? List.of() : drained;
  }
}
