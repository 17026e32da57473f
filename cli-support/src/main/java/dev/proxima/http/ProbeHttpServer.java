package dev.proxima.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 listener for probes, health checks or metrics. Connections are served by a shared
 * event loop, never by a thread each, so clients that connect and stall do not hold up anyone else;
 * a connection is closed when its request headers take longer than {@link Limits#headerTimeout()}
 * or it stays silent for {@link Limits#idleTimeout()}.
 *
 * <p>Paths are matched like the JDK server's contexts: the longest registered prefix of the
 * request's path wins, and a path no prefix matches gets 404.
 */
public final class ProbeHttpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProbeHttpServer.class);

  /**
   * Vert.x lets two servers of one process listen on the same address and splits connections
   * between them; a health-check port that collides with another listener must fail to bind
   * instead, as it would with separate sockets.
   */
  private static final Set<String> LISTENING = ConcurrentHashMap.newKeySet();

  private final HttpServer server;
  private final String claimed;

  /**
   * @param headerTimeout how long a request's line and headers may take to arrive
   * @param idleTimeout how long a connection may send and receive nothing
   */
  public record Limits(Duration headerTimeout, Duration idleTimeout) {
    /** Probes and scrapes send their headers at once; 10 s is generous over a slow network. */
    public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofSeconds(60));
  }

  private ProbeHttpServer(HttpServer server, String claimed) {
    this.server = server;
    this.claimed = claimed;
  }

  /** Listens on the address with {@link Limits#DEFAULT}. */
  public static ProbeHttpServer start(InetSocketAddress address, Map<String, ProbeHandler> routes)
      throws IOException {
    return start(address, routes, Limits.DEFAULT);
  }

  /**
   * @param routes path prefix to handler
   * @throws IOException when the address cannot be bound (in use, not local)
   */
  public static ProbeHttpServer start(
      InetSocketAddress address, Map<String, ProbeHandler> routes, Limits limits)
      throws IOException {
    var host =
        address.getAddress() == null
            ? address.getHostString()
            : address.getAddress().getHostAddress();
    var claimed = address.getPort() == 0 ? null : host + " port " + address.getPort();
    if (claimed != null && !LISTENING.add(claimed)) {
      throw new BindException("Address already in use by this process: " + claimed);
    }
    var vertx = ProbeEventLoop.vertx();
    var server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setHost(host)
                .setPort(address.getPort())
                .setIdleTimeout((int) Math.max(1, limits.idleTimeout().toMillis()))
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setHttp2ClearTextEnabled(false));
    var deadlines = new ConnectionDeadlines(vertx, Math.max(1, limits.headerTimeout().toMillis()));
    var byLongestPrefix = new LinkedHashMap<String, ProbeHandler>();
    routes.keySet().stream()
        .sorted(Comparator.comparingInt(String::length).reversed())
        .forEach(path -> byLongestPrefix.put(path, routes.get(path)));
    server.connectionHandler(deadlines::opened);
    server.requestHandler(
        request -> {
          deadlines.headersReceived(request.connection());
          var route = route(request, byLongestPrefix);
          if (route != null && route.blocks()) {
            // Read what the handler needs from the request now: it is not safe off the loop.
            var probe = probeRequest(request);
            request.pause();
            long waitMillis = Math.max(1, limits.idleTimeout().toMillis());
            vertx
                .executeBlocking(
                    () -> {
                      var answer = answer(route, probe);
                      if (answer.stream() == null) {
                        return answer;
                      }
                      stream(request, answer, waitMillis);
                      return null;
                    },
                    false)
                .onComplete(
                    done -> {
                      request.resume();
                      if (done.succeeded() && done.result() == null) {
                        deadlines.awaitHeaders(request.connection());
                        return;
                      }
                      send(
                          request,
                          done.succeeded()
                              ? done.result()
                              : ProbeResponse.text(500, "internal error\n"),
                          deadlines);
                    });
            return;
          }
          send(
              request,
              route == null
                  ? ProbeResponse.text(404, "404 Not Found\n")
                  : answer(route, probeRequest(request)),
              deadlines);
        });
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException | InterruptedException failure) {
      if (claimed != null) {
        LISTENING.remove(claimed);
      }
      if (failure instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      var cause = failure.getCause() == null ? failure : failure.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("cannot listen on " + host + " port " + address.getPort(), cause);
    }
    return new ProbeHttpServer(server, claimed);
  }

  private static void send(
      HttpServerRequest request, ProbeResponse response, ConnectionDeadlines deadlines) {
    var out = request.response().setStatusCode(response.status());
    response.headers().forEach(out::putHeader);
    out.end(Buffer.buffer(body(response)))
        .onComplete(sent -> deadlines.awaitHeaders(request.connection()));
  }

  /** The whole body: a streamed one written out first (on the event loop it cannot wait). */
  private static byte[] body(ProbeResponse response) {
    if (response.stream() == null) {
      return response.body();
    }
    var whole = new java.io.ByteArrayOutputStream();
    try {
      response.stream().writeTo(whole);
    } catch (IOException cannotHappen) {
      throw new java.io.UncheckedIOException(cannotHappen);
    }
    return whole.toByteArray();
  }

  /**
   * Sends a streamed body in chunks from this worker thread. Should writing fail once the headers
   * are out, the connection is closed, so the client sees a cut-off body rather than a short one.
   */
  private static void stream(HttpServerRequest request, ProbeResponse response, long waitMillis) {
    var out = request.response().setStatusCode(response.status());
    response.headers().forEach(out::putHeader);
    if (request.method() == io.vertx.core.http.HttpMethod.HEAD) {
      out.end();
      return;
    }
    out.setChunked(true);
    var body = new ResponseBodyStream(out, waitMillis);
    try {
      response.stream().writeTo(body);
      body.close();
    } catch (IOException | RuntimeException failure) {
      log.atDebug()
          .addKeyValue("path", request.path())
          .addKeyValue("reason", failure.getMessage())
          .log("Streaming a response failed; closing the connection");
      request.connection().close();
    }
  }

  /** The handler of the longest registered prefix of the request's path, or null. */
  private static ProbeHandler route(
      HttpServerRequest request, Map<String, ProbeHandler> byLongestPrefix) {
    var path = request.path() == null ? "" : request.path();
    for (var route : byLongestPrefix.entrySet()) {
      if (path.startsWith(route.getKey())) {
        return route.getValue();
      }
    }
    return null;
  }

  private static ProbeRequest probeRequest(HttpServerRequest request) {
    var path = request.path() == null ? "" : request.path();
    var headers = request.headers();
    var copied = new LinkedHashMap<String, List<String>>();
    headers
        .names()
        .forEach(
            name ->
                copied.put(
                    name.toLowerCase(java.util.Locale.ROOT), List.copyOf(headers.getAll(name))));
    return new ProbeRequest(
        request.method().name(),
        path,
        request.query(),
        name -> copied.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), List.of()));
  }

  private static ProbeResponse answer(ProbeHandler handler, ProbeRequest request) {
    try {
      return handler.handle(request);
    } catch (RuntimeException failure) {
      log.atWarn().setCause(failure).addKeyValue("path", request.path()).log("Handler failed");
      return ProbeResponse.text(500, "internal error\n");
    }
  }

  /** The port actually listened on, so tests can ask for port 0. */
  public int port() {
    return server.actualPort();
  }

  /** Stops listening and closes open connections; returns once the port is free again. */
  @Override
  public void close() {
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException failure) {
      log.atWarn().setCause(failure).log("Closing an HTTP listener failed");
    } finally {
      if (claimed != null) {
        LISTENING.remove(claimed);
      }
    }
  }
}
