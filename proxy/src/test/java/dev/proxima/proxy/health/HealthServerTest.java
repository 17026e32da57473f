package dev.proxima.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.http.testing.StalledClients;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HealthServerTest {
  private final MutableClock clock = new MutableClock();
  private final ProxyHealth health = new ProxyHealth(clock, Duration.ofSeconds(60));
  private final List<Integer> healthz = new CopyOnWriteArrayList<>();
  private final List<Integer> livez = new CopyOnWriteArrayList<>();
  private HealthServer server;

  @BeforeEach
  void start() throws Exception {
    server =
        HealthServer.start(new InetSocketAddress("127.0.0.1", 0), health, healthz::add, livez::add);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void isHealthyWithNothingQueuedEvenBeforeTheFirstSync() throws Exception {
    var response = get("/healthz");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body()).contains("\"healthy\": true").contains("\"nodeEligible\": true");
    assertThat(healthz).containsExactly(200);
  }

  @Test
  void becomesUnhealthyWhenAQueuedUpdateWaitsLongerThanTheTimeout() throws Exception {
    health.syncLoopStarted();
    health.updated(IpFamily.IPV4);
    health.queued(IpFamily.IPV4);
    clock.advance(Duration.ofSeconds(60));
    assertThat(get("/healthz").statusCode()).as("at the timeout").isEqualTo(200);

    clock.advance(Duration.ofSeconds(1));

    var response = get("/healthz");
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("\"healthy\": false").contains("\"IPv4\": {");
    assertThat(get("/livez").statusCode())
        .as("no sync pass ended: the loop is stuck")
        .isEqualTo(503);

    health.updated(IpFamily.IPV4);
    assertThat(get("/healthz").statusCode()).as("after the sync").isEqualTo(200);
  }

  @Test
  void aNodeBeingDeletedFailsHealthzButNotLivez() throws Exception {
    health.nodeIneligible("node is being deleted");

    assertThat(get("/healthz").statusCode()).isEqualTo(503);
    var live = get("/livez");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(live.body()).doesNotContain("nodeEligible");
    assertThat(healthz).containsExactly(503);
    assertThat(livez).containsExactly(200);
  }

  @Test
  void a503SaysWhyAndA200SaysNothing() throws Exception {
    assertThat(get("/healthz").body()).doesNotContain("reason");
    health.syncLoopStarted();
    health.awaitingFirstSync();
    health.queued(IpFamily.IPV4);
    health.nodeIneligible("node has the ToBeDeletedByClusterAutoscaler taint");
    clock.advance(Duration.ofSeconds(61));

    assertThat(get("/healthz").body())
        .endsWith(
            ", \"reason\": \"IPv4 rules not programmed within the health timeout; first sync"
                + " overdue: nothing programmed since start; node has the"
                + " ToBeDeletedByClusterAutoscaler taint\"}");
    assertThat(get("/livez").body())
        .endsWith(
            ", \"reason\": \"sync loop stopped: no sync pass ended within the health timeout\"}");
  }

  @Test
  void changesThatPassesKeepFailingToProgramFailHealthzButNotLivez() throws Exception {
    health.syncLoopStarted();
    health.queued(IpFamily.IPV4);
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(30));
      health.passEnded(); // a failed load, or informers not synced: the loop is alive
    }

    assertThat(get("/healthz").statusCode()).isEqualTo(503);
    var live = get("/livez");
    assertThat(live.statusCode()).as("the loop retries by itself").isEqualTo(200);
    assertThat(live.body()).contains("\"healthy\": false");
  }

  @Test
  void changesQueuedBeforeTheSyncLoopStartsNeverFailLivez() throws Exception {
    health.queued(IpFamily.IPV4);
    clock.advance(Duration.ofMinutes(10));

    assertThat(get("/livez").statusCode())
        .as("waiting for the informers' first list")
        .isEqualTo(200);

    health.syncLoopStarted();
    clock.advance(Duration.ofSeconds(60));
    assertThat(get("/livez").statusCode()).as("the loop has its timeout").isEqualTo(200);
    clock.advance(Duration.ofSeconds(1));
    assertThat(get("/livez").statusCode()).isEqualTo(503);
  }

  @Test
  void aLocalDetectionFallbackIsInBothBodiesAndFailsNeither() throws Exception {
    health.localDetection(
        IpFamily.IPV4,
        "None (no local-traffic detection); NodeCIDR is configured but the Node has no IPv4 CIDR"
            + " in spec.podCIDRs");

    var ready = get("/healthz");
    var live = get("/livez");

    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(ready.body())
        .contains(
            "\"warnings\": {\"IPv4\": \"None (no local-traffic detection); NodeCIDR is"
                + " configured but the Node has no IPv4 CIDR in spec.podCIDRs\"}");
    assertThat(live.body()).contains("\"warnings\": {\"IPv4\": ");
    health.localDetection(IpFamily.IPV4, null);
    assertThat(get("/healthz").body()).doesNotContain("warnings");
  }

  @Test
  void aProxyThatNeverSyncsFailsHealthzButNotLivezAfterTheTimeout() throws Exception {
    health.awaitingFirstSync();
    assertThat(get("/healthz").statusCode()).as("within the timeout").isEqualTo(200);

    clock.advance(Duration.ofSeconds(61));

    assertThat(get("/healthz").statusCode()).isEqualTo(503);
    assertThat(get("/livez").statusCode()).as("a restart would not help").isEqualTo(200);
    health.updated(IpFamily.IPV4);
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void healthzAndLivezAnswerPromptlyWhileManyConnectionsStall() throws Exception {
    try (var stalled = StalledClients.open("127.0.0.1", server.port(), 5, 5)) {
      for (int i = 0; i < 5; i++) {
        assertThat(StalledClients.getWithinThreeSeconds("127.0.0.1", server.port(), "/healthz"))
            .extracting(HttpResponse::statusCode)
            .isEqualTo(200);
        assertThat(StalledClients.getWithinThreeSeconds("127.0.0.1", server.port(), "/livez"))
            .extracting(HttpResponse::statusCode)
            .isEqualTo(200);
      }
    }
  }
}
