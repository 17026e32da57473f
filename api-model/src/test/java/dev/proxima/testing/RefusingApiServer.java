package dev.proxima.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

/**
 * An API server that answers every request with one error Status, as a real one does for bad
 * credentials (401) or missing RBAC (403).
 */
public final class RefusingApiServer implements AutoCloseable {
  private final HttpServer server;

  public RefusingApiServer(int code, String reason, String message) {
    var body =
        ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"%s\","
                + "\"reason\":\"%s\",\"code\":%d}")
            .formatted(message, reason, code)
            .getBytes(StandardCharsets.UTF_8);
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
    server.createContext(
        "/",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(code, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The URL of a loopback port nothing listens on: connections are refused. */
  public static String closedPortUrl() {
    try (var socket = new ServerSocket(0)) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    } catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
