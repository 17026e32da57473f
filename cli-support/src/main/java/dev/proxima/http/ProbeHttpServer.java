package dev.proxima.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.concurrent.atomic.AtomicInteger;
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

  /** How large the latest streamed body was, to size the next one's buffer. */
  private static final AtomicInteger LAST_STREAMED_SIZE = new AtomicInteger(64 * 1024);

  private final HttpServer server;
  private final String claimed;
  private final String host;
  private final int boundPort;

  /**
   * @param headerTimeout how long a request's line and headers may take to arrive
   * @param idleTimeout how long a connection may send and receive nothing
   * @param heldAnswers how many answers of blocking routes (scrapes) may be held at once, written
   *     out and not yet sent; a request beyond that gets 503 at once, before anything is computed
   * @param heldAnswersPerClient the same per client address
   * @param sendTimeout how long sending one such answer may take before its connection is closed
   */
  public record Limits(
      Duration headerTimeout,
      Duration idleTimeout,
      int heldAnswers,
      int heldAnswersPerClient,
      Duration sendTimeout) {
    /**
     * Probes and scrapes send their headers at once; 10 s is generous over a slow network. Four
     * scrapes in flight serve a Prometheus pair and two people with curl; Prometheus gives up on a
     * scrape after 10 s by default, so a body still unsent after 30 s has no reader left.
     */
    public static final Limits DEFAULT =
        new Limits(Duration.ofSeconds(10), Duration.ofSeconds(60), 4, 2, Duration.ofSeconds(30));

    /** The default limits with these two timeouts. */
    public Limits(Duration headerTimeout, Duration idleTimeout) {
      this(headerTimeout, idleTimeout, 4, 2, Duration.ofSeconds(30));
    }
  }

  /** How often, at most, a listener logs that it turned scrapes away. */
  private static final long REFUSALS_LOGGED_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private ProbeHttpServer(HttpServer server, String claimed, String host, int boundPort) {
    this.server = server;
    this.claimed = claimed;
    this.host = host;
    this.boundPort = boundPort;
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
    var held = new HeldAnswers(limits.heldAnswers(), limits.heldAnswersPerClient());
    var refusals = new Refusals(host + " port " + address.getPort());
    server.connectionHandler(deadlines::opened);
    server.requestHandler(
        request -> {
          deadlines.headersReceived(request.connection());
          var route = route(request, byLongestPrefix);
          if (route != null && route.blocks()) {
            var client = clientOf(request);
            if (!held.take(client)) {
              refusals.refused(client, held.held());
              send(request, BUSY, deadlines);
              return;
            }
            var given = new java.util.concurrent.atomic.AtomicBoolean();
            Runnable give =
                () -> {
                  if (given.compareAndSet(false, true)) {
                    held.give(client);
                  }
                };
            try {
              // Read what the handler needs from the request now: it is not safe off the loop.
              var probe = probeRequest(request);
              request.pause();
              vertx
                  .executeBlocking(() -> whole(answer(route, probe)), false)
                  .onComplete(
                      done -> {
                        try {
                          request.resume();
                          var response =
                              done.succeeded()
                                  ? done.result()
                                  : ProbeResponse.text(500, "internal error\n");
                          long giveUp =
                              vertx.setTimer(
                                  Math.max(1, limits.sendTimeout().toMillis()),
                                  late -> {
                                    // Closing fails the write, which gives its place back.
                                    request.connection().close();
                                    give.run();
                                  });
                          send(request, response, deadlines)
                              .onComplete(
                                  sent -> {
                                    vertx.cancelTimer(giveUp);
                                    give.run();
                                  });
                        } catch (RuntimeException closedMeanwhile) {
                          give.run();
                          throw closedMeanwhile;
                        }
                      });
            } catch (RuntimeException failure) {
              // Whatever threw, the place must not stay taken for good.
              give.run();
              throw failure;
            }
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
    return new ProbeHttpServer(server, claimed, host, server.actualPort());
  }

  private static final ProbeResponse BUSY =
      ProbeResponse.of(
          503,
          "text/plain; charset=utf-8",
          "too many scrapes are being sent; retry shortly\n",
          Map.of("Retry-After", "5"));

  /** Sends the answer; the future completes once it is written, or fails when it cannot be. */
  private static io.vertx.core.Future<Void> send(
      HttpServerRequest request, ProbeResponse response, ConnectionDeadlines deadlines) {
    var out = request.response().setStatusCode(response.status());
    response.headers().forEach(out::putHeader);
    return out.end(Buffer.buffer(whole(response).body()))
        .onComplete(sent -> deadlines.awaitHeaders(request.connection()));
  }

  private static String clientOf(HttpServerRequest request) {
    var remote = request.remoteAddress();
    return remote == null || remote.hostAddress() == null ? "unknown" : remote.hostAddress();
  }

  /** Logs turned-away scrapes: the first at once, then at most once a minute with a count. */
  private static final class Refusals {
    private final String listener;
    private long lastLogged = System.nanoTime() - REFUSALS_LOGGED_EVERY_NANOS;
    private long since;

    Refusals(String listener) {
      this.listener = listener;
    }

    synchronized void refused(String client, int held) {
      since++;
      long now = System.nanoTime();
      if (now - lastLogged < REFUSALS_LOGGED_EVERY_NANOS) {
        return;
      }
      log.atWarn()
          .addKeyValue("listener", listener)
          .addKeyValue("client", client)
          .addKeyValue("held", held)
          .addKeyValue("refused", since)
          .log(
              "Answered 503 to scrapes: too many answers are written and not yet read by their"
                  + " clients; a client that stops reading holds one until its send timeout");
      lastLogged = now;
      since = 0;
    }
  }

  /**
   * The answer with its body written out, if it was {@link ProbeResponse#streamed streamed}: the
   * event loop sends it as one buffer, whatever the client's pace. Writing it in chunks from the
   * worker instead would hold the one worker thread for as long as a client took to read, and a
   * client that stopped reading would stall every blocking route of the process.
   */
  private static ProbeResponse whole(ProbeResponse response) {
    if (response.stream() == null) {
      return response;
    }
    var body = new ByteArrayOutputStream(LAST_STREAMED_SIZE.get());
    try {
      response.stream().writeTo(body);
    } catch (IOException writing) {
      throw new UncheckedIOException(writing);
    }
    // The next body of a route is about as large: one array, not a doubling series of copies.
    LAST_STREAMED_SIZE.set(Math.max(1024, body.size() + body.size() / 8));
    return new ProbeResponse(response.status(), response.headers(), body.toByteArray());
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
        awaitPortReleased();
        LISTENING.remove(claimed);
      }
    }
  }

  /**
   * Vert.x completes a close before its event loop has closed the listening socket itself: one
   * listen on the same port right after failed with "Address already in use" in 30 of 300 tries. So
   * close waits, a bounded while, until the port can be bound, which is what it promises.
   */
  private void awaitPortReleased() {
    var address = new InetSocketAddress(host, boundPort);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      try (var probe = new java.net.ServerSocket()) {
        probe.setReuseAddress(true);
        probe.bind(address);
        return;
      } catch (IOException stillBound) {
        if (System.nanoTime() > deadline) {
          log.atWarn()
              .addKeyValue("address", host + " port " + boundPort)
              .log("The closed HTTP listener's port is still bound after 5 s");
          return;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
  }
}
