package dev.proxima.proxy.runtime;

import dev.proxima.proxy.explain.SyncState;
import dev.proxima.proxy.model.IpFamily;

/**
 * Keeps what {@code explain --live} and the health-check listeners read of one family, from other
 * threads: the plan the latest successful sync loaded (null before the first) and how syncs went.
 */
final class LivePublisher implements SyncObserver {
  // Replaced whole on the sync thread, so a reader sees one sync's plan and state together.
  private volatile Proxier.Published published;

  LivePublisher(IpFamily family) {
    published = new Proxier.Published(null, SyncState.notSynced(family));
  }

  Proxier.Published published() {
    return published;
  }

  /** How the rules detect local traffic, from the sync thread before it tells the result. */
  void localTraffic(String description) {
    var current = published;
    published =
        new Proxier.Published(current.plan(), current.state().withLocalTraffic(description));
  }

  @Override
  public void synced(SyncResult result) {
    var state = published.state();
    published =
        switch (result.outcome()) {
          case WAITING ->
              new Proxier.Published(published.plan(), state.waiting(result.waitingFor()));
          case FAILED ->
              new Proxier.Published(
                  published.plan(), state.failed(result.error(), result.finished()));
          case LOADED, UNCHANGED -> succeeded(result, state);
        };
  }

  private Proxier.Published succeeded(SyncResult result, SyncState state) {
    boolean full = result.decision().full();
    return new Proxier.Published(
        result.plan(),
        state.succeeded(
            full,
            result.finished(),
            result.outcome() == SyncResult.Outcome.LOADED
                ? result.rulesLoaded()
                : state.rulesLoaded(),
            result.plan().ports().size()));
  }
}
