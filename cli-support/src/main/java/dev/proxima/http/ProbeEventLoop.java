package dev.proxima.http;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;

/**
 * The one Vert.x instance behind every {@link ProbeHttpServer} of this process, created on first
 * use. One event loop is plenty for probes and scrapes, and keeps the footprint to a few threads
 * however many listeners are open; it is separate from the API client's Vert.x, so a burst of watch
 * events never delays a probe.
 */
final class ProbeEventLoop {
  private ProbeEventLoop() {}

  static Vertx vertx() {
    return Holder.VERTX;
  }

  private static final class Holder {
    private static final Vertx VERTX =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1)
                .setUseDaemonThread(true)
                // Nothing is served from files: no cache directory in the working directory.
                .setFileSystemOptions(
                    new FileSystemOptions()
                        .setFileCachingEnabled(false)
                        .setClassPathResolvingEnabled(false)));
  }
}
