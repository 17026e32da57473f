package dev.proxima.controller.queue;

import java.time.Duration;

/**
 * Observations a {@link RateLimitedWorkQueue} reports, matching the signals client-go's workqueue
 * exports ({@code adds_total}, {@code depth}, {@code retries_total}, {@code
 * queue_duration_seconds}, {@code work_duration_seconds}).
 *
 * <p>The queue depends on this interface rather than on a metrics library so that it stays free of
 * dependencies and tests can record calls directly. Callbacks run while the queue holds its lock,
 * so implementations must be quick, must not block and must not call back into the queue.
 */
public interface WorkQueueMetrics {

  /** Discards every observation, for queues nobody scrapes (and for tests that do not care). */
  WorkQueueMetrics NONE =
      new WorkQueueMetrics() {
        @Override
        public void added() {}

        @Override
        public void depth(int keysWaiting) {}

        @Override
        public void retried() {}

        @Override
        public void queueLatency(Duration waited) {}

        @Override
        public void workDuration(Duration worked) {}
      };

  /**
   * A key was accepted; adds of a key that is already pending are de-duplicated and not counted.
   */
  void added();

  /** The number of keys ready to be taken changed to {@code keysWaiting}. */
  void depth(int keysWaiting);

  /** A key was re-queued through the rate limiter after a failure. */
  void retried();

  /** A key was taken after waiting {@code waited} since it was added. */
  void queueLatency(Duration waited);

  /** A worker finished a key {@code worked} after taking it. */
  void workDuration(Duration worked);
}
