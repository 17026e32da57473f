package dev.proxima.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes a connection whose next request's headers have not all arrived in time, counted from the
 * moment the connection opened or its previous response was sent. The idle timeout alone would let
 * a client that sends one header byte every few seconds keep a connection forever.
 */
final class ConnectionDeadlines {
  private final Vertx vertx;
  private final long headerMillis;
  private final Map<HttpConnection, Long> timers = new ConcurrentHashMap<>();

  ConnectionDeadlines(Vertx vertx, long headerMillis) {
    this.vertx = vertx;
    this.headerMillis = headerMillis;
  }

  void opened(HttpConnection connection) {
    connection.closeHandler(closed -> cancel(connection));
    awaitHeaders(connection);
  }

  /** The request's headers are complete. */
  void headersReceived(HttpConnection connection) {
    cancel(connection);
  }

  /**
   * The response went out; a kept-alive connection has the same time again for its next request.
   */
  void awaitHeaders(HttpConnection connection) {
    long timer =
        vertx.setTimer(
            headerMillis,
            fired -> {
              timers.remove(connection);
              connection.close();
            });
    var previous = timers.put(connection, timer);
    if (previous != null) {
      vertx.cancelTimer(previous);
    }
  }

  private void cancel(HttpConnection connection) {
    var timer = timers.remove(connection);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }
}
