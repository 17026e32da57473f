package dev.proxima.proxy.dataplane;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Predicate;

/**
 * Loads a cold rebuild's transactions in order on a thread of its own, so batch k+1 renders while
 * nft loads batch k. The queue holds {@link #WAITING} at most, so a large table's batches are never
 * all in memory. Loading stops at the first refusal: later ones are dropped, and {@link #offer}
 * says so, so the caller can stop writing them.
 */
final class LoadPipeline<T> {
  /** Transactions written and not yet being loaded, at most: one is enough to keep nft busy. */
  static final int WAITING = 1;

  private static final Object END = new Object();

  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(WAITING);
  private final Predicate<T> load;
  private final Thread thread;
  private volatile boolean refused;

  /** Written by the loading thread before it ends. */
  private volatile Throwable failure;

  /** {@code load} answers false when the kernel refused the transaction. */
  LoadPipeline(String name, Predicate<T> load) {
    this.load = load;
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    try {
      while (true) {
        var transaction = queue.take();
        if (transaction == END) {
          return;
        }
        if (!refused) {
          loadOne(transaction);
        }
        // After a refusal the rest are taken and dropped.
      }
    } catch (InterruptedException e) {
      refused = true;
      Thread.currentThread().interrupt();
    }
  }

  @SuppressWarnings("unchecked") // only offer() puts anything but END
  private void loadOne(Object transaction) {
    try {
      if (!load.test((T) transaction)) {
        refused = true;
      }
    } catch (RuntimeException | Error e) {
      failure = e;
      refused = true;
    }
  }

  /** Waits while the loader is behind; false once a transaction was refused (this one too). */
  boolean offer(T transaction) {
    if (refused) {
      return false;
    }
    try {
      queue.put(transaction);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.interrupt();
      refused = true;
      return false;
    }
    return !refused;
  }

  /** Waits for every transaction; true when the loader took them all. Rethrows what it threw. */
  boolean finish() {
    try {
      queue.put(END);
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.interrupt();
      try {
        thread.join();
      } catch (InterruptedException again) {
        Thread.currentThread().interrupt();
      }
      refused = true;
    }
    var thrown = failure;
    if (thrown instanceof Error error) {
      throw error;
    }
    if (thrown instanceof RuntimeException exception) {
      throw exception;
    }
    return !refused;
  }
}
