package dev.proxima.proxy.runtime;

import dev.proxima.http.ProbeHandler;
import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeRequest;
import dev.proxima.http.ProbeResponse;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.explain.LiveExplain;
import dev.proxima.proxy.explain.LiveExplainReport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Serves {@code GET /explain?service=NAMESPACE/NAME&format=text|json} for {@code explain --live},
 * on a loopback address only: in the host's network namespace any other would let every pod on the
 * node read which endpoints each Service uses.
 */
public final class ExplainServer implements AutoCloseable {
  public static final String PATH = "/explain";

  private final ProbeHttpServer server;

  private ExplainServer(ProbeHttpServer server) {
    this.server = server;
  }

  /** {@code snapshot} is called on the HTTP event loop: it must not wait for a sync. */
  public static ExplainServer start(
      InetSocketAddress address, Function<ObjectKey, LiveExplain> snapshot) throws IOException {
    requireLoopback(address);
    return new ExplainServer(
        ProbeHttpServer.start(
            address,
            // The report reads the kernel's counters: off the probes' event loop.
            Map.of(PATH, ProbeHandler.blocking(request -> answer(request, snapshot)))));
  }

  /** Rejects an address other pods of a hostNetwork proxy's node could reach. */
  public static void requireLoopback(InetSocketAddress address) {
    if (address.isUnresolved() || !address.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "--explain-bind-address must be a loopback address such as 127.0.0.1:PORT, not "
              + address.getHostString()
              + ": the proxy shares the node's network, so any other address would let every"
              + " pod on the node read it");
    }
  }

  public int port() {
    return server.port();
  }

  private static ProbeResponse answer(
      ProbeRequest request, Function<ObjectKey, LiveExplain> snapshot) {
    if (!request.path().equals(PATH)) {
      return ProbeResponse.text(404, "404 Not Found\n");
    }
    if (!request.method().equals("GET")) {
      return ProbeResponse.of(
          405, "text/plain; charset=utf-8", "only GET\n", Map.of("Allow", "GET"));
    }
    var query = query(request.query());
    ObjectKey service = null;
    var asked = query.get("service");
    if (asked != null && !asked.isEmpty()) {
      try {
        service = ObjectKey.parse(asked);
      } catch (IllegalArgumentException invalid) {
        return ProbeResponse.text(400, "--service takes NAMESPACE/NAME, not " + asked + "\n");
      }
    }
    var format = query.getOrDefault("format", "json");
    if (!format.equals("json") && !format.equals("text")) {
      return ProbeResponse.text(400, "format is json or text, not " + format + "\n");
    }
    var live = snapshot.apply(service);
    var headers = Map.of("X-Content-Type-Options", "nosniff", "Cache-Control", "no-store");
    return format.equals("text")
        ? ProbeResponse.of(200, "text/plain; charset=utf-8", LiveExplainReport.text(live), headers)
        : ProbeResponse.of(200, "application/json", LiveExplainReport.json(live), headers);
  }

  private static Map<String, String> query(String raw) {
    var values = new HashMap<String, String>();
    if (raw == null || raw.isEmpty()) {
      return values;
    }
    for (var pair : raw.split("&")) {
      int equals = pair.indexOf('=');
      var name = equals < 0 ? pair : pair.substring(0, equals);
      var value = equals < 0 ? "" : pair.substring(equals + 1);
      try {
        values.putIfAbsent(
            URLDecoder.decode(name, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        // A broken escape is ignored like an unknown parameter.
      }
    }
    return values;
  }

  @Override
  public void close() {
    server.close();
  }
}
