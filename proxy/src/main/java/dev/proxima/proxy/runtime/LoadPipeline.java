package dev.proxima.proxy.runtime;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Predicate;

/**
 * Loads a cold rebuild's transactions on threads of their own while the caller writes the next
 * ones: the rebuild renders batch k+1 while nft loads batch k, where it used to render them all and
 * then wait for nft. The hand-over queue holds {@link #WAITING} transactions at most, so the
 * batches of a large table are never all in memory at once; a caller that gets ahead waits.
 *
 * <p>Two transactions that each add whole Service ports of their own load side by side, in two
 * {@code nft} processes: most of a load is {@code nft} parsing and evaluating its script in user
 * space, which the kernel does not serialize, so on two cores the port batches of a 10,000-Service
 * table load in about 0.31 s instead of 0.51 s, to the same table. A transaction handed over as
 * {@code alone} waits for every earlier one, and every later one waits for it: the table's first
 * transaction, its last, and a batch that uses what an earlier batch declared.
 *
 * <p>Loading stops at the first transaction the kernel refuses: what the other lane loads or has
 * been handed finishes (each adds whole Service ports of its own), no transaction handed over alone
 * after it loads, later ones are taken and dropped unloaded, and {@link #offer} says so, so the
 * caller can stop writing them.
 */
final class LoadPipeline {
  /** Transactions written and not yet being loaded, at most: one is enough to keep nft busy. */
  static final int WAITING = 1;

  private record Transaction(String text, boolean alone) {}

  /** The end of the transactions: compared by identity. */
  private static final Transaction END = new Transaction("end of transactions", true);

  private final BlockingQueue<Transaction> queue = new ArrayBlockingQueue<>(WAITING);
  private final Predicate<String> load;
  private final Thread thread;
  private final SecondLane second;
  private volatile boolean refused;

  /** The first thing loading threw, on either lane; guarded by {@code this}. */
  private Throwable failure;

  /**
   * @param name the loading threads' name; the second lane's adds {@code -2}
   * @param load loads one transaction; false when the kernel refused it. Called from two threads at
   *     once for transactions not handed over alone.
   */
  LoadPipeline(String name, Predicate<String> load) {
    this.load = load;
    this.second = new SecondLane(name + "-2");
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
        if (refused) {
          // Dropped: the transactions after a refused one are not loaded.
          continue;
        }
        if (transaction.alone()) {
          second.awaitIdle();
          loadOne(transaction.text());
        } else if (!second.take(transaction.text())) {
          loadOne(transaction.text());
        }
      }
    } catch (InterruptedException e) {
      refused = true;
      Thread.currentThread().interrupt();
    } finally {
      second.stop();
    }
  }

  private void loadOne(String transaction) {
    try {
      if (!refused && !load.test(transaction)) {
        refused = true;
      }
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        if (failure == null) {
          failure = e;
        }
      }
      refused = true;
    }
  }

  /**
   * Hands over the next transaction, waiting while the loaders are behind; false once a transaction
   * was refused (this one is then not loaded).
   *
   * @param alone whether it must load after every earlier transaction and before any later one
   */
  boolean offer(String transaction, boolean alone) {
    if (refused) {
      return false;
    }
    try {
      queue.put(new Transaction(transaction, alone));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.interrupt();
      refused = true;
      return false;
    }
    return !refused;
  }

  /**
   * Waits until every transaction handed over is loaded or dropped; true when the loaders took them
   * all. What the loaders did is visible to the caller once this returns.
   *
   * @throws RuntimeException what loading a transaction threw (an Error as itself)
   */
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
    Throwable thrown;
    synchronized (this) {
      thrown = failure;
    }
    if (thrown instanceof Error error) {
      throw error;
    }
    if (thrown instanceof RuntimeException exception) {
      throw exception;
    }
    return !refused;
  }

  /** The lane that loads a transaction while the first lane loads another. */
  private final class SecondLane {
    private final Thread thread;
    private String next;
    private boolean busy;
    private boolean stopping;

    SecondLane(String name) {
      this.thread = new Thread(this::run, name);
      thread.setDaemon(true);
      thread.start();
    }

    private void run() {
      while (true) {
        String transaction;
        synchronized (this) {
          while (next == null && !stopping) {
            try {
              wait();
            } catch (InterruptedException e) {
              stopping = true;
              Thread.currentThread().interrupt();
            }
          }
          if (next == null) {
            return;
          }
          transaction = next;
          next = null;
        }
        try {
          loadOne(transaction);
        } finally {
          synchronized (this) {
            busy = false;
            notifyAll();
          }
        }
      }
    }

    /** Starts loading {@code transaction} when idle; false when still loading the one before. */
    synchronized boolean take(String transaction) {
      if (busy) {
        return false;
      }
      busy = true;
      next = transaction;
      notifyAll();
      return true;
    }

    synchronized void awaitIdle() throws InterruptedException {
      while (busy) {
        wait();
      }
    }

    /** Lets a load in progress end, then ends the thread. */
    void stop() {
      synchronized (this) {
        stopping = true;
        notifyAll();
      }
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
