package dev.proxima.proxy.health;

import dev.proxima.http.ProbeHttpServer;
import dev.proxima.http.ProbeResponse;
import dev.proxima.proxy.model.IpFamily;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Serves {@code /healthz} and {@code /livez} with kube-proxy's status codes and JSON bodies, so
 * load balancers and probes written for kube-proxy work unchanged. /livez fails only when the sync
 * loop has stopped (see {@link ProxyHealth}); a body may add {@code warnings}, per family, about
 * what the proxy runs without (a local-traffic detection fallback). Any pod can reach this port, so
 * it runs on {@link ProbeHttpServer}, which stalled connections cannot starve.
 */
public final class HealthServer implements AutoCloseable {
  private final ProbeHttpServer server;

  private HealthServer(ProbeHttpServer server) {
    this.server = server;
  }

  /** The response consumers receive each status code, for proxy_healthz_total and livez_total. */
  public static HealthServer start(
      InetSocketAddress address,
      ProxyHealth health,
      IntConsumer healthzResponses,
      IntConsumer livezResponses)
      throws IOException {
    return new HealthServer(
        ProbeHttpServer.start(
            address,
            Map.of(
                "/healthz", request -> respond(health.snapshot(), true, healthzResponses),
                "/livez", request -> respond(health.snapshot(), false, livezResponses))));
  }

  public int port() {
    return server.port();
  }

  private static ProbeResponse respond(
      ProxyHealth.Snapshot snapshot, boolean withNode, IntConsumer responses) {
    boolean ok =
        withNode
            ? snapshot.healthy() && snapshot.nodeEligible() && !snapshot.firstSyncOverdue()
            : !snapshot.syncLoopStuck();
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
    body.append(", \"status\": ");
    object(
        body,
        snapshot.status(),
        status ->
            "{\"lastUpdated\": "
                + quote(status.lastUpdated())
                + ", \"healthy\": "
                + status.healthy()
                + "}");
    if (!snapshot.warnings().isEmpty()) {
      body.append(", \"warnings\": ");
      object(body, snapshot.warnings(), warning -> "\"" + jsonSafe(warning) + "\"");
    }
    if (!ok) {
      body.append(", \"reason\": \"").append(reasons(snapshot, withNode)).append('"');
    }
    body.append('}');
    // Counted before answering, so a scrape right after a probe's response already includes it.
    responses.accept(code);
    return ProbeResponse.of(
        code, "application/json", body.toString(), Map.of("X-Content-Type-Options", "nosniff"));
  }

  /**
   * Why the answer is 503, in words, so a probe's body tells an operator where to look; the texts
   * are listed in docs/troubleshooting.md. They contain no character JSON would need escaped.
   */
  private static String reasons(ProxyHealth.Snapshot snapshot, boolean withNode) {
    var reasons = new java.util.ArrayList<String>();
    if (!withNode) {
      return "sync loop stopped: no sync pass ended within the health timeout";
    }
    snapshot
        .status()
        .forEach(
            (family, status) -> {
              if (!status.healthy()) {
                reasons.add(family.apiName() + " rules not programmed within the health timeout");
              }
            });
    if (snapshot.firstSyncOverdue()) {
      reasons.add("first sync overdue: nothing programmed since start");
    }
    if (!snapshot.nodeEligible()) {
      reasons.add(snapshot.nodeIneligible());
    }
    return jsonSafe(String.join("; ", reasons));
  }

  private static <T> void object(
      StringBuilder body, Map<IpFamily, T> members, Function<T, String> value) {
    var joined = new StringJoiner(", ", "{", "}");
    members.forEach(
        (family, member) -> joined.add("\"" + family.apiName() + "\": " + value.apply(member)));
    body.append(joined);
  }

  /** Quotes become apostrophes, backslashes and controls go: nothing left to escape. */
  private static String jsonSafe(String text) {
    return text.replace("\"", "'").replace("\\", "/").replaceAll("\\p{Cntrl}", " ");
  }

  private static String quote(Instant instant) {
    return instant == null ? "\"\"" : "\"" + instant + "\"";
  }

  @Override
  public void close() {
    server.close();
  }
}
