package dev.proxima.proxy.runtime;

/** Reacts to each family's sync; called on the sync thread, after the load, in subscribe order. */
@FunctionalInterface
public interface SyncObserver {
  void synced(SyncResult result);
}
