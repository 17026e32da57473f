package dev.proxima.proxy.track;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Accumulates changes between syncs as kube-proxy's change trackers do: per key the projection
 * before the first change and after the latest, forgotten when the two are equal again, so updates
 * that change nothing the proxy uses cost nothing.
 */
public final class ChangeTracker<K, T, P> {
  private final Function<T, P> projection;
  private final Map<K, Change<P>> pending = new HashMap<>();

  /** Null means absent. */
  public record Change<P>(P previous, P current) {}

  public ChangeTracker(Function<T, P> projection) {
    this.projection = projection;
  }

  /** Null previous or current for an add or a delete; true when something is pending after. */
  public synchronized boolean update(K key, T previous, T current) {
    var before = previous == null ? null : projection.apply(previous);
    var after = current == null ? null : projection.apply(current);
    var change = pending.get(key);
    var first = change == null ? before : change.previous();
    if (Objects.equals(first, after)) {
      pending.remove(key);
    } else {
      pending.put(key, new Change<>(first, after));
    }
    return !pending.isEmpty();
  }

  public synchronized int pendingCount() {
    return pending.size();
  }

  public synchronized Map<K, Change<P>> drain() {
    var drained = Map.copyOf(pending);
    pending.clear();
    return drained;
  }
}
