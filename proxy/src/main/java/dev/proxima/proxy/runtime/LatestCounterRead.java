package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ConnectionCounts;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One family's connection counters as a scrape sees them: a fresh read when it finishes within
 * {@code wait}, else the latest finished one while the slow one goes on. nft 1.0.6 reads the whole
 * ruleset to list counters, longer than a scrape may take on a large table: this way the figures
 * lag by one read instead of never arriving, with at most one read under way.
 */
final class LatestCounterRead implements Supplier<Optional<ConnectionCounts>> {
  private final Supplier<Optional<ConnectionCounts>> read;
  private final Executor executor;
  private final Duration wait;
  private CompletableFuture<Optional<ConnectionCounts>> running;
  private Optional<ConnectionCounts> latest = Optional.empty();

  LatestCounterRead(Supplier<Optional<ConnectionCounts>> read, Executor executor, Duration wait) {
    this.read = read;
    this.executor = executor;
    this.wait = wait;
  }

  @Override
  public synchronized Optional<ConnectionCounts> get() {
    if (running == null) {
      running = CompletableFuture.supplyAsync(read, executor);
    }
    try {
      var fresh = running.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      running = null;
      if (fresh.isPresent()) {
        latest = fresh;
      }
      return fresh;
    } catch (TimeoutException slow) {
      // Still reading: the last figures the kernel gave, picked up by a later scrape.
      return latest;
    } catch (ExecutionException failed) {
      running = null;
      return Optional.empty();
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return latest;
    }
  }
}
