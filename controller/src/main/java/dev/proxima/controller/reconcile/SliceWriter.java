package dev.proxima.controller.reconcile;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;

/** Writes one EndpointSlice with optimistic concurrency on its resourceVersion. */
public interface SliceWriter {
  /**
   * Replaces the slice if its resourceVersion is still current.
   *
   * @return the slice as stored after the write
   * @throws WriteConflictException when the slice changed since it was read
   * @throws SliceGoneException when the slice no longer exists
   * @throws NotLeaderException when this replica may not write
   */
  EndpointSlice update(EndpointSlice desired);

  /** The slice changed since it was read (HTTP 409); the Service is retried with fresh state. */
  final class WriteConflictException extends RuntimeException {
    public WriteConflictException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The slice was deleted between read and write; nothing is left to hint. */
  final class SliceGoneException extends RuntimeException {
    public SliceGoneException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** This replica lost (or never had) the leader Lease. */
  final class NotLeaderException extends RuntimeException {
    public NotLeaderException() {
      super("not the leader: writes are disabled");
    }
  }
}
