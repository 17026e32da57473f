package dev.proxima.cli;

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
    for (var signal : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(signal), received -> stop.countDown());
    }
    return stop;
  }
}
