package dev.proxima.bench;

/** The harness itself failed (a tool missing, a process that never synced), not a target. */
final class HarnessError extends RuntimeException {
  HarnessError(String message) {
    super(message);
  }

  HarnessError(String message, Throwable cause) {
    super(message, cause);
  }
}
