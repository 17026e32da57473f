package dev.proxima.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a latch the main thread waits on, so a daemon shuts down in its own
 * order and exits 0; a JVM shutdown hook would race the exit and end with status 143.
 */
public final class TerminationSignals {
  private TerminationSignals() {}

  public static CountDownLatch latch() {
    var stop = new CountDownLatch(1);
    requested().thenRun(stop::countDown);
    return stop;
  }

  /**
   * Completes on the first SIGTERM or SIGINT. Unlike a latch it can be awaited together with other
   * work (informers that have not synced yet), and the daemon may complete it itself to stop.
   */
  public static CompletableFuture<Void> requested() {
    var stop = new CompletableFuture<Void>();
    for (var signal : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(signal), received -> stop.complete(null));
    }
    return stop;
  }
}
