package dev.proxima.proxy.health;

import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeResponse;
import dev.proxima.model.ObjectKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p>Where they listen follows {@code --nodeport-addresses}, as kube-proxy's do: without it on
 * every address of both families (one dual-stack socket on {@code ::}, or {@code 0.0.0.0} on a host
 * without IPv6), with it on each node address it selects. A listener that cannot bind is an error
 * in the log (kube-proxy records a {@code FailedToStartServiceHealthcheck} Event) and counts in a
 * metric; the Service's other addresses still listen, and the next sync tries again.
 */
public final class ServiceHealthServers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServiceHealthServers.class);

  /** Listen on every address: dual-stack {@code ::}, falling back to {@code 0.0.0.0}. */
  public static final List<String> EVERY_ADDRESS = null;

  private static final String DUAL_STACK = "::";
  private static final String IPV4_ANY = "0.0.0.0";

  private final BooleanSupplier proxyHealthy;
  private final Runnable bindFailed;
  private final Map<ObjectKey, Listener> listeners = new HashMap<>();
  private final Map<ObjectKey, Integer> localEndpoints = new ConcurrentHashMap<>();

  /** Where a listener on every address is kept in {@link Listener#servers()}. */
  private static final String EVERY = "*";

  /** The addresses asked for (null: every one), and the server of each address that bound. */
  private record Listener(int port, List<String> addresses, Map<String, ProbeHttpServer> servers) {}

  /** {@code bindFailed} is called once per address that cannot bind, for the metric. */
  public ServiceHealthServers(BooleanSupplier proxyHealthy, Runnable bindFailed) {
    this.proxyHealthy = proxyHealthy;
    this.bindFailed = bindFailed;
  }

  /**
   * Also tries again the addresses that could not bind before, leaving the others open.
   *
   * @param addresses the node addresses --nodeport-addresses selects, both families (none: listen
   *     nowhere, as NodePorts are served nowhere then); {@link #EVERY_ADDRESS} without the flag
   */
  public synchronized void sync(
      Map<ObjectKey, Integer> ports,
      Map<ObjectKey, Integer> readyLocalEndpoints,
      List<String> addresses) {
    localEndpoints.clear();
    localEndpoints.putAll(readyLocalEndpoints);
    var wantedAddresses = addresses == EVERY_ADDRESS ? null : List.copyOf(addresses);
    listeners
        .entrySet()
        .removeIf(
            entry -> {
              var wanted = ports.get(entry.getKey());
              var listener = entry.getValue();
              if (wanted != null
                  && wanted == listener.port()
                  && java.util.Objects.equals(wantedAddresses, listener.addresses())) {
                return false;
              }
              listener.servers().values().forEach(ProbeHttpServer::close);
              return true;
            });
    ports.forEach(
        (service, port) -> {
          var listener =
              listeners.computeIfAbsent(
                  service, s -> new Listener(port, wantedAddresses, new LinkedHashMap<>()));
          for (var address : wantedAddresses == null ? List.of(EVERY) : wantedAddresses) {
            if (!listener.servers().containsKey(address)) {
              bindAny(service, address, port)
                  .ifPresent(server -> listener.servers().put(address, server));
            }
          }
        });
  }

  /** The port actually listened on for a Service, for tests; -1 when nothing listens. */
  public synchronized int port(ObjectKey service) {
    var listener = listeners.get(service);
    return listener == null || listener.servers().isEmpty()
        ? -1
        : listener.servers().values().iterator().next().port();
  }

  private java.util.Optional<ProbeHttpServer> bindAny(ObjectKey service, String address, int port) {
    if (!EVERY.equals(address)) {
      return bind(service, address, port);
    }
    try {
      return java.util.Optional.of(open(service, DUAL_STACK, port));
    } catch (IOException noIpv6) {
      // A host without IPv6 cannot bind "::"; IPv4 alone is all it serves then.
      return bind(service, IPV4_ANY, port);
    }
  }

  private java.util.Optional<ProbeHttpServer> bind(ObjectKey service, String address, int port) {
    try {
      return java.util.Optional.of(open(service, address, port));
    } catch (IOException bindFailure) {
      bindFailed.run();
      log.atError()
          .addKeyValue("service", service)
          .addKeyValue("address", address)
          .addKeyValue("healthCheckNodePort", port)
          .addKeyValue("reason", "FailedToStartServiceHealthcheck")
          .addKeyValue("error", bindFailure.getMessage())
          .log("Cannot listen on the Service's health check node port");
      return java.util.Optional.empty();
    }
  }

  private ProbeHttpServer open(ObjectKey service, String address, int port) throws IOException {
    return ProbeHttpServer.start(
        new InetSocketAddress(address, port),
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
    listeners
        .values()
        .forEach(listener -> listener.servers().values().forEach(ProbeHttpServer::close));
    listeners.clear();
  }
}
