package dev.proxima.proxy.health;

import com.sun.net.httpserver.HttpServer;
import dev.proxima.model.ObjectKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-Service health checks of externalTrafficPolicy Local load balancers: one listener per
 * healthCheckNodePort, answering 200 while this node has a ready endpoint of the Service and the
 * proxy is healthy, 503 otherwise, so the load balancer sends traffic only to nodes that can serve
 * it locally. Status codes, header and body are kube-proxy's.
 */
public final class ServiceHealthServers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServiceHealthServers.class);

  private final String bindAddress;
  private final BooleanSupplier proxyHealthy;
  private final Map<ObjectKey, Listener> listeners = new HashMap<>();
  private final Map<ObjectKey, Integer> localEndpoints = new ConcurrentHashMap<>();

  private record Listener(int port, HttpServer server) {}

  /**
   * @param bindAddress the address to listen on, usually 0.0.0.0
   */
  public ServiceHealthServers(String bindAddress, BooleanSupplier proxyHealthy) {
    this.bindAddress = bindAddress;
    this.proxyHealthy = proxyHealthy;
  }

  /**
   * Opens listeners for new health-check ports, closes those no longer wanted, and updates the
   * local endpoint counts the listeners report.
   */
  public synchronized void sync(
      Map<ObjectKey, Integer> ports, Map<ObjectKey, Integer> readyLocalEndpoints) {
    localEndpoints.clear();
    localEndpoints.putAll(readyLocalEndpoints);
    listeners
        .entrySet()
        .removeIf(
            entry -> {
              var wanted = ports.get(entry.getKey());
              if (wanted != null && wanted == entry.getValue().port()) {
                return false;
              }
              entry.getValue().server().stop(0);
              return true;
            });
    ports.forEach(
        (service, port) -> {
          if (listeners.containsKey(service)) {
            return;
          }
          try {
            listeners.put(service, new Listener(port, open(service, port)));
          } catch (IOException bindFailure) {
            log.atWarn()
                .addKeyValue("service", service)
                .addKeyValue("healthCheckNodePort", port)
                .addKeyValue("error", bindFailure.getMessage())
                .log(
                    "FailedToStartServiceHealthcheck: cannot listen on the Service's health check port");
          }
        });
  }

  /** The port actually listened on for a Service, for tests. */
  public synchronized int port(ObjectKey service) {
    var listener = listeners.get(service);
    return listener == null ? -1 : listener.server().getAddress().getPort();
  }

  private HttpServer open(ObjectKey service, int port) throws IOException {
    var server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    server.createContext(
        "/",
        exchange -> {
          int count = localEndpoints.getOrDefault(service, 0);
          boolean healthy = proxyHealthy.getAsBoolean();
          var body =
              "{\n\t\"service\": {\n\t\t\"namespace\": \""
                  + service.namespace()
                  + "\",\n\t\t\"name\": \""
                  + service.name()
                  + "\"\n\t},\n\t\"localEndpoints\": "
                  + count
                  + ",\n\t\"serviceProxyHealthy\": "
                  + healthy
                  + "\n}";
          var bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
          exchange
              .getResponseHeaders()
              .set("X-Load-Balancing-Endpoint-Weight", String.valueOf(count));
          exchange.sendResponseHeaders(count > 0 && healthy ? 200 : 503, bytes.length);
          try (var out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            runnable -> {
              var thread = new Thread(runnable, "service-health-" + port);
              thread.setDaemon(true);
              return thread;
            }));
    server.start();
    return server;
  }

  @Override
  public synchronized void close() {
    listeners.values().forEach(listener -> listener.server().stop(0));
    listeners.clear();
  }
}
