package dev.proxima.proxy.health;

import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeResponse;
import dev.proxima.model.ObjectKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-Service health checks of externalTrafficPolicy Local load balancers: one listener per
 * healthCheckNodePort, answering 200 while this node has a ready endpoint of the Service and the
 * proxy is healthy, 503 otherwise, so the load balancer sends traffic only to nodes that can serve
 * it locally. Status codes, header and body are kube-proxy's. The listeners share {@link
 * ProbeHttpServer}'s event loop: no thread per Service, and no stalled client can starve one.
 */
public final class ServiceHealthServers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServiceHealthServers.class);

  private final String bindAddress;
  private final BooleanSupplier proxyHealthy;
  private final Map<ObjectKey, Listener> listeners = new HashMap<>();
  private final Map<ObjectKey, Integer> localEndpoints = new ConcurrentHashMap<>();

  private record Listener(int port, ProbeHttpServer server) {}

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
              entry.getValue().server().close();
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
    return listener == null ? -1 : listener.server().port();
  }

  private ProbeHttpServer open(ObjectKey service, int port) throws IOException {
    return ProbeHttpServer.start(
        new InetSocketAddress(bindAddress, port),
        Map.of(
            "/",
            request -> {
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
              return ProbeResponse.of(
                  count > 0 && healthy ? 200 : 503,
                  "application/json",
                  body,
                  Map.of(
                      "X-Content-Type-Options",
                      "nosniff",
                      "X-Load-Balancing-Endpoint-Weight",
                      String.valueOf(count)));
            }));
  }

  @Override
  public synchronized void close() {
    listeners.values().forEach(listener -> listener.server().close());
    listeners.clear();
  }
}
