package dev.proxima.proxy.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;

/**
 * Serves {@code /healthz} and {@code /livez} with kube-proxy's status codes and JSON bodies, so
 * load balancers and probes written for kube-proxy work unchanged.
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  private HealthServer(HttpServer server) {
    this.server = server;
  }

  /**
   * @param healthzResponses and livezResponses receive each status code, for proxy_healthz_total
   *     and proxy_livez_total
   */
  public static HealthServer start(
      InetSocketAddress address,
      ProxyHealth health,
      IntConsumer healthzResponses,
      IntConsumer livezResponses)
      throws IOException {
    var server = HttpServer.create(address, 16);
    server.createContext(
        "/healthz", exchange -> respond(exchange, health.snapshot(), true, healthzResponses));
    server.createContext(
        "/livez", exchange -> respond(exchange, health.snapshot(), false, livezResponses));
    server.setExecutor(
        Executors.newFixedThreadPool(
            2,
            runnable -> {
              var thread = new Thread(runnable, "proxy-health");
              thread.setDaemon(true);
              return thread;
            }));
    server.start();
    return new HealthServer(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(
      HttpExchange exchange, ProxyHealth.Snapshot snapshot, boolean withNode, IntConsumer responses)
      throws IOException {
    boolean ok =
        snapshot.healthy()
            && (!withNode || (snapshot.nodeEligible() && !snapshot.firstSyncOverdue()));
    int code = ok ? 200 : 503;
    // kube-proxy reports the current time as lastUpdated when healthy, for old clients.
    var lastUpdated = ok ? snapshot.currentTime() : snapshot.lastUpdated();
    var body = new StringBuilder("{");
    body.append("\"lastUpdated\": ").append(quote(lastUpdated));
    body.append(", \"currentTime\": ").append(quote(snapshot.currentTime()));
    if (withNode) {
      body.append(", \"nodeEligible\": ").append(snapshot.nodeEligible());
    }
    body.append(", \"healthy\": ").append(snapshot.healthy());
    body.append(", \"status\": {");
    var first = true;
    for (var entry : snapshot.status().entrySet()) {
      if (!first) {
        body.append(", ");
      }
      first = false;
      body.append('"')
          .append(entry.getKey().apiName())
          .append("\": {\"lastUpdated\": ")
          .append(quote(entry.getValue().lastUpdated()))
          .append(", \"healthy\": ")
          .append(entry.getValue().healthy())
          .append('}');
    }
    body.append("}}");
    var bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    // Counted before answering, so a scrape right after a probe's response already includes it.
    responses.accept(code);
    exchange.sendResponseHeaders(code, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String quote(Instant instant) {
    return instant == null ? "\"\"" : "\"" + instant + "\"";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
