package dev.proxima.controller.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * Serves {@code /metrics} on the metrics address and {@code /healthz} and {@code /readyz} on the
 * probe address; when both addresses are the same, one listener serves all three. Plain JDK
 * HttpServer: no web framework for three endpoints.
 */
public final class ProbeServer implements AutoCloseable {
  private final List<HttpServer> servers = new ArrayList<>();
  private final Map<String, HttpServer> serverByPath = new LinkedHashMap<>();

  private ProbeServer() {}

  public static ProbeServer start(
      InetSocketAddress metricsAddress,
      InetSocketAddress probeAddress,
      PrometheusRegistry registry,
      BooleanSupplier live,
      BooleanSupplier ready)
      throws IOException {
    var byAddress = new LinkedHashMap<InetSocketAddress, Map<String, HttpHandler>>();
    byAddress
        .computeIfAbsent(metricsAddress, a -> new LinkedHashMap<>())
        .put("/metrics", new MetricsHandler(registry));
    var probes = byAddress.computeIfAbsent(probeAddress, a -> new LinkedHashMap<>());
    probes.put("/healthz", check(live, "ok", "unhealthy"));
    probes.put("/readyz", check(ready, "ok", "informers not synced"));
    var server = new ProbeServer();
    try {
      for (var entry : byAddress.entrySet()) {
        var http = HttpServer.create(entry.getKey(), 16);
        entry.getValue().forEach(http::createContext);
        http.setExecutor(
            Executors.newFixedThreadPool(
                2,
                runnable -> {
                  var thread = new Thread(runnable, "probe-http");
                  thread.setDaemon(true);
                  return thread;
                }));
        http.start();
        server.servers.add(http);
        entry.getValue().keySet().forEach(path -> server.serverByPath.put(path, http));
      }
    } catch (IOException bindFailure) {
      server.close();
      throw bindFailure;
    }
    return server;
  }

  /** The port actually bound for the given path, so tests can bind port 0. */
  public int port(String path) {
    var http = serverByPath.get(path);
    if (http == null) {
      throw new IllegalArgumentException("no listener serves " + path);
    }
    return http.getAddress().getPort();
  }

  private static HttpHandler check(BooleanSupplier condition, String okBody, String failBody) {
    return exchange -> {
      boolean ok = condition.getAsBoolean();
      respond(exchange, ok ? 200 : 503, ok ? okBody : failBody);
    };
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    var bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    servers.forEach(http -> http.stop(0));
  }
}
