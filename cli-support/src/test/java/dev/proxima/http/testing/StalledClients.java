package dev.proxima.http.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Connections that misbehave the way a hostile or broken pod can: some send one byte of a request
 * and stop, some send a request line and part of a header and stop. They stay open until closed.
 */
public final class StalledClients implements AutoCloseable {
  private final List<Socket> sockets = new ArrayList<>();

  private StalledClients() {}

  /** Opens {@code oneByte} connections that send "G" and {@code slowHeaders} cut off mid-header. */
  public static StalledClients open(String host, int port, int oneByte, int slowHeaders)
      throws IOException {
    var clients = new StalledClients();
    try {
      for (int i = 0; i < oneByte + slowHeaders; i++) {
        var socket = new Socket();
        clients.sockets.add(socket);
        socket.connect(new InetSocketAddress(host, port), 1000);
        var partial = i < oneByte ? "G" : "GET /healthz HTTP/1.1\r\nHost: stalled\r\nX-Slow: a";
        socket.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
      }
    } catch (IOException failure) {
      clients.close();
      throw failure;
    }
    return clients;
  }

  public int count() {
    return sockets.size();
  }

  /**
   * A fresh GET on a new connection that gives up after three seconds, so a starved server fails
   * the test instead of hanging it. A server that answers serves it in milliseconds; the margin is
   * for a loaded 2-core machine, and stays well below the 10 s header timeout that would otherwise
   * free a starved server's threads.
   */
  public static HttpResponse<String> getWithinThreeSeconds(String host, int port, String path)
      throws IOException, InterruptedException {
    return getWithin(host, port, path, Duration.ofSeconds(3));
  }

  /** A GET that fails unless answered within {@code timeout}. */
  public static HttpResponse<String> getWithin(String host, int port, String path, Duration timeout)
      throws IOException, InterruptedException {
    var client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(3))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
            .timeout(timeout)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    for (var socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Already gone.
      }
    }
  }
}
