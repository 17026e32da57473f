package dev.proxima.proxy.runtime;

import dev.proxima.proxy.track.ListedComparison;
import dev.proxima.proxy.track.ObjectVersions;
import java.util.function.Supplier;

/**
 * The cache's Services and slices as a restart's first sync compares them with its saved revisions,
 * taken once per sync pass and only when asked for: the families' saved revisions are the same, and
 * the snapshot compares the second family's with the first's instead of every object again.
 */
final class OnePassObjects implements Supplier<ObjectVersions.Snapshot> {
  private final ProxyCache cache;
  private final ListedComparison listed;
  private ObjectVersions.Snapshot snapshot;

  OnePassObjects(ProxyCache cache) {
    this(cache, ListedComparison.none());
  }

  /**
   * @param listed the informers' first lists as compared while they were stored
   */
  OnePassObjects(ProxyCache cache, ListedComparison listed) {
    this.cache = cache;
    this.listed = listed;
  }

  @Override
  public ObjectVersions.Snapshot get() {
    if (snapshot == null) {
      snapshot = new ObjectVersions.Snapshot(cache.services(), cache.endpointSlices(), listed);
    }
    return snapshot;
  }
}
