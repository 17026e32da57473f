package dev.proxima.http;

/**
 * Answers one request. It runs on the listeners' event loop, so it must only read state that is
 * already in memory (a health snapshot, a metrics registry), never wait for I/O or a long lock; a
 * handler that must (a scrape that reads kernel counters) is wrapped in {@link #blocking}.
 */
@FunctionalInterface
public interface ProbeHandler {
  ProbeResponse handle(ProbeRequest request);

  /** Whether this handler may wait for I/O, so it runs off the event loop. */
  default boolean blocks() {
    return false;
  }

  /**
   * {@code handler}, run on a worker thread instead of the event loop: while it waits, health
   * probes on every listener of the process are still answered at once. Such requests are served
   * one at a time.
   */
  static ProbeHandler blocking(ProbeHandler handler) {
    return new ProbeHandler() {
      @Override
      public ProbeResponse handle(ProbeRequest request) {
        return handler.handle(request);
      }

      @Override
      public boolean blocks() {
        return true;
      }
    };
  }
}
