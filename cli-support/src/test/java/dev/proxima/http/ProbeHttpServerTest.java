package dev.proxima.http;

import static dev.proxima.http.testing.StalledClients.getWithinThreeSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.proxima.http.testing.StalledClients;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProbeHttpServerTest {
  private static final String HOST = "127.0.0.1";
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (var closeable : open) {
      closeable.close();
    }
  }

  private ProbeHttpServer start(Map<String, ProbeHandler> routes, ProbeHttpServer.Limits limits)
      throws IOException {
    var server = ProbeHttpServer.start(new InetSocketAddress(HOST, 0), routes, limits);
    open.add(server);
    return server;
  }

  private ProbeHttpServer okServer(ProbeHttpServer.Limits limits) throws IOException {
    return start(Map.of("/healthz", request -> ProbeResponse.text(200, "ok")), limits);
  }

  @Test
  void theLongestMatchingPrefixAnswersAndOtherPathsGet404() throws Exception {
    var server =
        start(
            Map.of(
                "/", request -> ProbeResponse.text(200, "root"),
                "/healthz", request -> ProbeResponse.text(503, "sick " + request.path())),
            ProbeHttpServer.Limits.DEFAULT);
    var bare =
        start(
            Map.of("/livez", request -> ProbeResponse.text(200, "ok")),
            ProbeHttpServer.Limits.DEFAULT);

    var health = getWithinThreeSeconds(HOST, server.port(), "/healthz/extra");
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body()).isEqualTo("sick /healthz/extra");
    assertThat(health.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
    assertThat(getWithinThreeSeconds(HOST, server.port(), "/other").body()).isEqualTo("root");
    assertThat(getWithinThreeSeconds(HOST, bare.port(), "/other").statusCode()).isEqualTo(404);
  }

  @Test
  void freshRequestsAnswerPromptlyWhileManyConnectionsStall() throws Exception {
    var server = okServer(ProbeHttpServer.Limits.DEFAULT);
    var stalled = StalledClients.open(HOST, server.port(), 100, 100);
    open.add(stalled);

    for (int i = 0; i < 20; i++) {
      var response = getWithinThreeSeconds(HOST, server.port(), "/healthz");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
    }
    // Still held open: they stalled well within the 10 s header timeout.
    try (var more = StalledClients.open(HOST, server.port(), 10, 10)) {
      assertThat(getWithinThreeSeconds(HOST, server.port(), "/healthz").statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void aConnectionWhoseHeadersTrickleInIsClosedAtTheHeaderTimeout() throws Exception {
    var server =
        okServer(new ProbeHttpServer.Limits(Duration.ofMillis(500), Duration.ofSeconds(60)));
    var writer = Executors.newSingleThreadScheduledExecutor();
    open.add(writer::shutdownNow);
    try (var socket = new Socket(HOST, server.port())) {
      var out = socket.getOutputStream();
      out.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
      // One more header byte every 50 ms: never idle, never done.
      writer.scheduleAtFixedRate(
          () -> {
            try {
              out.write('a');
            } catch (IOException closed) {
              // The server hung up, which is the point.
            }
          },
          50,
          50,
          TimeUnit.MILLISECONDS);
      socket.setSoTimeout(20_000);
      long started = System.nanoTime();

      // The idle timeout is a minute, so only the header timeout closes it before the read gives
      // up.
      assertThat(socket.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    }
  }

  @Test
  void aSilentConnectionIsClosedAtTheIdleTimeout() throws Exception {
    var server =
        okServer(new ProbeHttpServer.Limits(Duration.ofSeconds(60), Duration.ofMillis(500)));
    try (var socket = new Socket(HOST, server.port())) {
      socket.setSoTimeout(20_000);

      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void aKeptAliveConnectionGetsTheHeaderTimeoutAgainForItsNextRequest() throws Exception {
    var server =
        okServer(new ProbeHttpServer.Limits(Duration.ofMillis(500), Duration.ofSeconds(60)));
    try (var socket = new Socket(HOST, server.port())) {
      socket.setSoTimeout(20_000);
      socket
          .getOutputStream()
          .write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      var in = socket.getInputStream();
      var answer = new StringBuilder();
      while (!answer.toString().endsWith("ok")) {
        answer.append((char) in.read());
      }
      assertThat(answer.toString()).startsWith("HTTP/1.1 200");

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(in.read()).as("closed while waiting").isEqualTo(-1));
    }
  }

  @Test
  void anAddressThisProcessAlreadyServesCannotBeListenedOnAgain() throws Exception {
    // A fixed port, as the proxy's listeners have: only those are claimed by the process, so the
    // second listen is refused by the claim before it reaches a socket. (A port-0 listener is not
    // claimed, and Vert.x would share its socket with a second server on the same port.)
    var address = new InetSocketAddress(HOST, portOutsideTheEphemeralRange());
    var first = ProbeHttpServer.start(address, Map.of());

    assertThatThrownBy(() -> ProbeHttpServer.start(address, Map.of()))
        .isInstanceOf(BindException.class);

    first.close();
    open.add(ProbeHttpServer.start(address, Map.of()));
  }

  /** A free port below Linux's ephemeral range (32768 and up unless configured otherwise). */
  private static int portOutsideTheEphemeralRange() throws IOException {
    for (int port = 20_000; port < 32_768; port++) {
      try (var probe = new java.net.ServerSocket()) {
        probe.bind(new InetSocketAddress(HOST, port));
        return port;
      } catch (BindException taken) {
        // Next one.
      }
    }
    throw new IOException("no free port between 20000 and 32767");
  }

  @Test
  void anAddressAnotherSocketHoldsFailsToBind() throws Exception {
    try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      assertThatThrownBy(
              () ->
                  ProbeHttpServer.start(
                      new InetSocketAddress(HOST, taken.getLocalPort()), Map.of()))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void aFailingHandlerAnswers500AndTheServerKeepsServing() throws Exception {
    var server =
        start(
            Map.of(
                "/boom",
                request -> {
                  throw new IllegalStateException("broken");
                },
                "/healthz",
                request -> ProbeResponse.text(200, "ok")),
            ProbeHttpServer.Limits.DEFAULT);

    assertThat(getWithinThreeSeconds(HOST, server.port(), "/boom").statusCode()).isEqualTo(500);
    assertThat(getWithinThreeSeconds(HOST, server.port(), "/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void metricsAreServedInThePrometheusTextFormat() throws Exception {
    var registry = new PrometheusRegistry();
    Counter.builder().name("probe_test_requests").register(registry).inc();
    var server =
        start(
            Map.of("/metrics", new PrometheusMetricsHandler(registry)),
            ProbeHttpServer.Limits.DEFAULT);

    var response = getWithinThreeSeconds(HOST, server.port(), "/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    assertThat(response.body()).contains("probe_test_requests_total 1.0");
    assertThat(
            getWithinThreeSeconds(HOST, server.port(), "/metrics?name[]=absent")
                .body()
                .contains("probe_test_requests"))
        .as("name[] filters")
        .isFalse();
  }

  @Test
  void aClientThatStopsReadingALargeBodyDelaysNoOtherRequest() throws Exception {
    var server = largeScrapes(ProbeHttpServer.Limits.DEFAULT);
    try (var reader = new Socket()) {
      // It reads the first line of its 8 MB answer and then nothing: the idle limit is a minute.
      assertThat(statusLineOfAStalledScrape(reader, HOST, server.port()))
          .isEqualTo("HTTP/1.1 200 OK");

      for (int i = 0; i < 3; i++) {
        var scrape =
            StalledClients.getWithin(HOST, server.port(), "/metrics", Duration.ofSeconds(5));
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.body()).hasSize(8_000_000);
      }
    }
  }

  /** A blocking /metrics route whose every answer is 8 MB, more than a socket's buffers take. */
  private ProbeHttpServer largeScrapes(ProbeHttpServer.Limits limits) throws IOException {
    byte[] line = "x".repeat(99).concat("\n").getBytes(StandardCharsets.US_ASCII);
    return start(
        Map.of(
            "/metrics",
            ProbeHandler.blocking(
                request ->
                    ProbeResponse.streamed(
                        200,
                        Map.of("Content-Type", "text/plain"),
                        out -> {
                          for (int i = 0; i < 80_000; i++) {
                            out.write(line);
                          }
                        }))),
        limits);
  }

  /** Sends a scrape from {@code from} and reads only the status line of its answer. */
  private static String statusLineOfAStalledScrape(Socket socket, String from, int port)
      throws IOException {
    socket.setReceiveBufferSize(4096);
    socket.bind(new InetSocketAddress(from, 0));
    socket.connect(new InetSocketAddress(HOST, port));
    socket
        .getOutputStream()
        .write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    socket.setSoTimeout(10_000);
    var status = new StringBuilder();
    for (int c = socket.getInputStream().read(); c != '\r' && c != -1; ) {
      status.append((char) c);
      c = socket.getInputStream().read();
    }
    return status.toString();
  }

  @Test
  void clientsThatStopReadingHoldAtMostTheLimitOfAnswersAndTheRestGet503UntilTheSendTimeout()
      throws Exception {
    var server =
        largeScrapes(
            new ProbeHttpServer.Limits(
                Duration.ofSeconds(10), Duration.ofSeconds(60), 2, 2, Duration.ofSeconds(2)));
    var stalled = new ArrayList<Socket>();
    try {
      var statuses = new ArrayList<String>();
      for (int i = 0; i < 4; i++) {
        var socket = new Socket();
        stalled.add(socket);
        statuses.add(statusLineOfAStalledScrape(socket, HOST, server.port()));
      }
      assertThat(statuses)
          .containsExactly(
              "HTTP/1.1 200 OK",
              "HTTP/1.1 200 OK",
              "HTTP/1.1 503 Service Unavailable",
              "HTTP/1.1 503 Service Unavailable");

      // The two unread answers are closed at the send timeout, and scrapes are served again.
      await()
          .atMost(Duration.ofSeconds(15))
          .untilAsserted(
              () -> {
                var scrape =
                    StalledClients.getWithin(
                        HOST, server.port(), "/metrics", Duration.ofSeconds(5));
                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.body()).hasSize(8_000_000);
              });
    } finally {
      for (var socket : stalled) {
        socket.close();
      }
    }
  }

  @Test
  void oneClientThatStopsReadingCannotTakeThePlacesOfAnother() throws Exception {
    var server =
        largeScrapes(
            new ProbeHttpServer.Limits(
                Duration.ofSeconds(10), Duration.ofSeconds(60), 4, 1, Duration.ofSeconds(60)));
    try (var first = new Socket();
        var second = new Socket()) {
      assertThat(statusLineOfAStalledScrape(first, "127.0.0.2", server.port()))
          .isEqualTo("HTTP/1.1 200 OK");
      assertThat(statusLineOfAStalledScrape(second, "127.0.0.2", server.port()))
          .isEqualTo("HTTP/1.1 503 Service Unavailable");

      var scrape = StalledClients.getWithin(HOST, server.port(), "/metrics", Duration.ofSeconds(5));
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.body()).hasSize(8_000_000);
    }
  }

  @Test
  void aBlockingHandlerThatWaitsDelaysNoProbeOnAnyListener() throws Exception {
    var release = new java.util.concurrent.CountDownLatch(1);
    var slow =
        start(
            Map.of(
                "/metrics",
                ProbeHandler.blocking(
                    request -> {
                      try {
                        release.await(20, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return ProbeResponse.text(200, "scraped " + request.path());
                    })),
            ProbeHttpServer.Limits.DEFAULT);
    var health = okServer(ProbeHttpServer.Limits.DEFAULT);
    var pool = Executors.newSingleThreadExecutor();
    try {
      var scrape =
          pool.submit(
              () ->
                  StalledClients.getWithin(HOST, slow.port(), "/metrics", Duration.ofSeconds(30)));
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !scrape.isDone());

      for (int i = 0; i < 5; i++) {
        assertThat(getWithinThreeSeconds(HOST, health.port(), "/healthz").statusCode())
            .isEqualTo(200);
      }
      release.countDown();
      var answer = scrape.get(10, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("scraped /metrics");
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }
}
