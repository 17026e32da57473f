package dev.proxima.cli;

import java.util.concurrent.ThreadFactory;

/** Threads for background executors that must not keep the JVM alive on their own. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory of daemon threads with this name, which thread dumps and log lines show. */
  public static ThreadFactory named(String name) {
    return task -> {
      var thread = new Thread(task, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
