package dev.proxima.controller.health;

import dev.proxima.http.ProbeHandler;
import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeResponse;
import dev.proxima.http.PrometheusMetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Serves {@code /metrics} on the metrics address and {@code /healthz} and {@code /readyz} on the
 * probe address; when both addresses are the same, one listener serves all three. The listeners are
 * {@link ProbeHttpServer}s, so clients that connect and stall cannot make the kubelet's probes time
 * out.
 */
public final class ProbeServer implements AutoCloseable {
  private final List<ProbeHttpServer> servers = new ArrayList<>();
  private final Map<String, ProbeHttpServer> serverByPath = new LinkedHashMap<>();

  private ProbeServer() {}

  public static ProbeServer start(
      InetSocketAddress metricsAddress,
      InetSocketAddress probeAddress,
      PrometheusRegistry registry,
      BooleanSupplier live,
      BooleanSupplier ready)
      throws IOException {
    return start(metricsAddress, probeAddress, registry, List.of(), live, ready);
  }

  /**
   * @param streamed families /metrics writes besides the registry's (see {@link
   *     PrometheusMetricsHandler})
   */
  public static ProbeServer start(
      InetSocketAddress metricsAddress,
      InetSocketAddress probeAddress,
      PrometheusRegistry registry,
      List<dev.proxima.http.StreamedFamily> streamed,
      BooleanSupplier live,
      BooleanSupplier ready)
      throws IOException {
    var byAddress = new LinkedHashMap<InetSocketAddress, Map<String, ProbeHandler>>();
    byAddress
        .computeIfAbsent(metricsAddress, a -> new LinkedHashMap<>())
        .put("/metrics", new PrometheusMetricsHandler(registry, streamed));
    var probes = byAddress.computeIfAbsent(probeAddress, a -> new LinkedHashMap<>());
    probes.put("/healthz", check(live, "ok", "unhealthy"));
    probes.put("/readyz", check(ready, "ok", "informers not synced"));
    var server = new ProbeServer();
    try {
      for (var entry : byAddress.entrySet()) {
        var http = ProbeHttpServer.start(entry.getKey(), entry.getValue());
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
    return http.port();
  }

  private static ProbeHandler check(BooleanSupplier condition, String okBody, String failBody) {
    return request -> {
      boolean ok = condition.getAsBoolean();
      return ProbeResponse.text(ok ? 200 : 503, ok ? okBody : failBody);
    };
  }

  @Override
  public void close() {
    servers.forEach(ProbeHttpServer::close);
  }
}
