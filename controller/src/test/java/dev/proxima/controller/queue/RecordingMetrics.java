package dev.proxima.controller.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Remembers every callback so tests can assert what the queue reported. */
final class RecordingMetrics implements WorkQueueMetrics {

  final AtomicInteger adds = new AtomicInteger();
  final AtomicInteger retries = new AtomicInteger();
  final List<Integer> depths = new CopyOnWriteArrayList<>();
  final List<Duration> queueLatencies = new CopyOnWriteArrayList<>();
  final List<Duration> workDurations = new CopyOnWriteArrayList<>();

  @Override
  public void added() {
    adds.incrementAndGet();
  }

  @Override
  public void depth(int keysWaiting) {
    depths.add(keysWaiting);
  }

  @Override
  public void retried() {
    retries.incrementAndGet();
  }

  @Override
  public void queueLatency(Duration waited) {
    queueLatencies.add(waited);
  }

  @Override
  public void workDuration(Duration worked) {
    workDurations.add(worked);
  }
}
