package dev.proxima.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.http.testing.StalledClients;
import dev.proxima.model.ObjectKey;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServiceHealthServersTest {
  private final AtomicBoolean proxyHealthy = new AtomicBoolean(true);
  private final AtomicInteger bindFailures = new AtomicInteger();
  private final ServiceHealthServers servers =
      new ServiceHealthServers(proxyHealthy::get, bindFailures::incrementAndGet);
  private final ObjectKey web = new ObjectKey("shop", "web");

  @AfterEach
  void close() {
    servers.close();
  }

  private static int freePort() throws Exception {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private HttpResponse<String> get(int port) throws Exception {
    return get("127.0.0.1", port);
  }

  private HttpResponse<String> get(String host, int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/")).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withoutNodePortAddressesTheHealthCheckPortAnswersOnBothFamilies() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);

    assertThat(get("127.0.0.1", port).statusCode()).isEqualTo(200);
    assertThat(get("[::1]", port).statusCode()).isEqualTo(200);
  }

  @Test
  void withNodePortAddressesTheHealthCheckPortListensOnThoseAddressesOnly() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 1), List.of("::1"));

    assertThat(get("[::1]", port).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> get("127.0.0.1", port)).isInstanceOf(ConnectException.class);
  }

  @Test
  void withNodePortAddressesThatSelectNothingTheHealthCheckPortListensNowhere() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 1), List.of());

    assertThat(servers.port(web)).isEqualTo(-1);
    assertThatThrownBy(() -> get("127.0.0.1", port)).isInstanceOf(ConnectException.class);
  }

  @Test
  void anAddressThatCannotBindIsTriedAgainWhileTheOthersStayOpen() throws Exception {
    int port = freePort();
    var taken = new ServerSocket();
    taken.bind(new java.net.InetSocketAddress("::1", port));
    servers.sync(Map.of(web, port), Map.of(web, 1), List.of("127.0.0.1", "::1"));
    assertThat(bindFailures).hasValue(1);

    try (var open = new java.net.Socket("127.0.0.1", port)) {
      servers.sync(Map.of(web, port), Map.of(web, 1), List.of("127.0.0.1", "::1"));
      assertThat(bindFailures).as("::1 tried again").hasValue(2);

      // The connection made before that sync is still served: 127.0.0.1 was not reopened.
      open.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      var answer =
          new String(
              open.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 200");
    }

    taken.close();
    servers.sync(Map.of(web, port), Map.of(web, 1), List.of("127.0.0.1", "::1"));

    assertThat(get("[::1]", port).statusCode()).isEqualTo(200);
    assertThat(bindFailures).hasValue(2);
  }

  @Test
  void aBindFailureCountsOncePerAddressInTheMetric() throws Exception {
    try (var taken = new ServerSocket(0)) {
      servers.sync(Map.of(web, taken.getLocalPort()), Map.of(web, 1), List.of("127.0.0.1", "::1"));

      assertThat(bindFailures).hasValue(2);
      assertThat(servers.port(web)).isEqualTo(-1);
    }
  }

  @Test
  void answers200WithTheLocalEndpointCountWhileTheNodeCanServe() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 2), ServiceHealthServers.EVERY_ADDRESS);

    var response = get(port);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("X-Load-Balancing-Endpoint-Weight")).hasValue("2");
    assertThat(response.body())
        .contains("\"namespace\": \"shop\"")
        .contains("\"localEndpoints\": 2")
        .contains("\"serviceProxyHealthy\": true");
  }

  @Test
  void answers503WithoutLocalEndpointsOrWhenTheProxyIsUnhealthy() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(), ServiceHealthServers.EVERY_ADDRESS);
    assertThat(get(port).statusCode()).isEqualTo(503);

    servers.sync(Map.of(web, port), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);
    proxyHealthy.set(false);

    var response = get(port);
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("\"serviceProxyHealthy\": false");
  }

  @Test
  void closesTheListenerWhenTheServiceNoLongerNeedsIt() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);

    servers.sync(Map.of(), Map.of(), ServiceHealthServers.EVERY_ADDRESS);

    assertThat(servers.port(web)).isEqualTo(-1);
    // Refused, rather than bound again here: while parallel builds open connections, any port
    // may be some client socket's local port, and a bind then fails although nothing listens.
    assertThatThrownBy(() -> get("127.0.0.1", port)).isInstanceOf(ConnectException.class);
  }

  @Test
  void aPortThatCannotBeBoundIsLoggedAndSkipped() throws Exception {
    try (var taken = new ServerSocket(0)) {
      servers.sync(
          Map.of(web, taken.getLocalPort()), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);

      assertThat(servers.port(web)).isEqualTo(-1);
    }
  }

  @Test
  void theHealthCheckPortAnswersPromptlyWhileManyConnectionsStall() throws Exception {
    int port = freePort();
    servers.sync(Map.of(web, port), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);

    try (var stalled = StalledClients.open("127.0.0.1", port, 5, 5)) {
      for (int i = 0; i < 5; i++) {
        assertThat(StalledClients.getWithinThreeSeconds("127.0.0.1", port, "/").statusCode())
            .isEqualTo(200);
      }
    }
  }

  @Test
  void aHealthCheckPortThatAnotherListenerOfTheProxyHoldsIsSkipped() throws Exception {
    int port = freePort();
    var other = new ObjectKey("shop", "other");
    servers.sync(Map.of(web, port), Map.of(web, 1), ServiceHealthServers.EVERY_ADDRESS);

    servers.sync(
        Map.of(web, port, other, port),
        Map.of(web, 1, other, 1),
        ServiceHealthServers.EVERY_ADDRESS);

    assertThat(servers.port(other)).isEqualTo(-1);
    assertThat(servers.port(web)).isEqualTo(port);
  }
}
