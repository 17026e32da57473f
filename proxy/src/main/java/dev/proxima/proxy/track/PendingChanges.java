package dev.proxima.proxy.track;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Service and EndpointSlice changes no sync has taken in yet, for every family: the informers'
 * handlers feed it, the sync runner drains the Services to re-plan, and each family's sync drains
 * its slices' trigger times.
 */
public final class PendingChanges {
  private final ChangeTracker<ObjectKey, Service, Projections.ServiceProjection> services =
      new ChangeTracker<>(Projections::of);
  private final EndpointSliceChangeTracker slices;

  /**
   * @param startedAt when the proxy started: trigger times from before were its predecessor's
   */
  public PendingChanges(Instant startedAt) {
    this.slices = new EndpointSliceChangeTracker(startedAt);
  }

  /**
   * Records a Service's change; {@code previous} or {@code current} is null for an add or delete.
   *
   * @return how many Services have changes pending
   */
  public int serviceChanged(ObjectKey key, Service previous, Service current) {
    services.update(key, previous, current);
    return services.pendingCount();
  }

  /**
   * Records a slice's change.
   *
   * @return the slice's trigger-time annotation when it cannot be read
   */
  public Optional<String> sliceChanged(
      ObjectKey key, EndpointSlice previous, EndpointSlice current) {
    return slices.update(key, previous, current);
  }

  public int pendingServices() {
    return services.pendingCount();
  }

  public int pendingSlices() {
    return slices.pendingCount();
  }

  /** The Services whose own changes or whose slices' changes are pending; starts afresh. */
  public Set<ObjectKey> drainChangedServices() {
    var changed = new HashSet<>(services.drain().keySet());
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

  /** When the slice changes a sync of {@code family} takes in were made, for its latency metric. */
  public List<Instant> drainTriggerTimes(IpFamily family) {
    return slices.drainTriggerTimes(family);
  }
}
