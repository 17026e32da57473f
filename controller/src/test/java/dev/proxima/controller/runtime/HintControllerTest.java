package dev.proxima.controller.runtime;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static dev.proxima.controller.testing.Fixtures.sliceOfType;
import static dev.proxima.controller.testing.Fixtures.withHints;
import static dev.proxima.controller.testing.Fixtures.zoneHint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.controller.events.EventReasons;
import dev.proxima.controller.health.ProbeServer;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.testing.Fixtures;
import dev.proxima.http.testing.StalledClients;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The live controller against the CRUD mock API server. */
@EnableKubernetesMockClient(crud = true, https = false)
class HintControllerTest {
  private static final String SLICES_PATH =
      "/apis/discovery.k8s.io/v1/namespaces/test/endpointslices";

  KubernetesClient client;
  KubernetesMockServer server;

  private final List<AutoCloseable> running = new ArrayList<>();

  @BeforeEach
  void failFastOnErrors() {
    client.getConfiguration().setRequestRetryBackoffLimit(0);
  }

  @AfterEach
  void stopEverything() throws Exception {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  /** A started controller with its own metrics registry. */
  private record Replica(
      HintController controller, ControllerMetrics metrics, PrometheusRegistry registry) {}

  private Replica start(ControllerConfig config) throws Exception {
    return start(config, () -> {});
  }

  private Replica start(ControllerConfig config, Runnable onLostLeadership) throws Exception {
    var registry = new PrometheusRegistry();
    var metrics = new ControllerMetrics(registry);
    var controller =
        new HintController(client, config, metrics, Clock.systemUTC(), onLostLeadership);
    running.add(controller);
    controller.start(Duration.ofSeconds(10));
    return new Replica(controller, metrics, registry);
  }

  private static ControllerConfig config() {
    return ControllerConfig.defaults();
  }

  private static ControllerConfig.LeaderElectionConfig election(String identity) {
    return new ControllerConfig.LeaderElectionConfig(
        true,
        "test",
        "proxima-test",
        identity,
        Duration.ofSeconds(2),
        Duration.ofMillis(1500),
        Duration.ofMillis(200));
  }

  private EndpointSlice stored(String name) {
    return client.discovery().v1().endpointSlices().inNamespace("test").withName(name).get();
  }

  private List<String> zoneHintsOf(String slice) {
    return stored(slice).getEndpoints().stream().map(HintControllerTest::describe).toList();
  }

  private static String describe(Endpoint endpoint) {
    var hints = endpoint.getHints();
    if (hints == null) {
      return "none";
    }
    return "zones="
        + hints.getForZones().stream().map(z -> z.getName()).toList()
        + " nodes="
        + hints.getForNodes().stream().map(n -> n.getName()).toList();
  }

  /** Counts the write requests for EndpointSlices the mock server received since the last call. */
  private int sliceWritesSinceLastCall() throws InterruptedException {
    int writes = 0;
    io.fabric8.mockwebserver.http.RecordedRequest request;
    while ((request = takeRequest()) != null) {
      // Service status patches (the conditions) count too: a resync must write neither.
      if (!"GET".equals(request.getMethod())
          && (request.getPath().startsWith(SLICES_PATH)
              || request.getPath().matches("/api/v1/namespaces/test/services/[^/]+/status.*"))) {
        writes++;
      }
    }
    return writes;
  }

  private io.fabric8.mockwebserver.http.RecordedRequest takeRequest() throws InterruptedException {
    return server.takeRequest(1, TimeUnit.MILLISECONDS);
  }

  private void createService(String name, String trafficDistribution) {
    client.resource(service(name, trafficDistribution)).create();
  }

  private void setTrafficDistribution(String name, String value) {
    Fixtures.setTrafficDistribution(client, name, value);
  }

  @Test
  void hintsAppearChangeWithTheValueAndDisappearWhenItIsRemoved() throws Exception {
    createService("svc", "PreferSameZone");
    client
        .resource(
            slice(
                "s1", "svc", ready("10.0.0.1", "zone-a", "n1"), ready("10.0.0.2", "zone-b", "n2")))
        .create();
    start(config());

    await()
        .untilAsserted(
            () ->
                assertThat(zoneHintsOf("s1"))
                    .containsExactly("zones=[zone-a] nodes=[]", "zones=[zone-b] nodes=[]"));

    setTrafficDistribution("svc", "PreferSameNode");
    await()
        .untilAsserted(
            () ->
                assertThat(zoneHintsOf("s1"))
                    .containsExactly("zones=[zone-a] nodes=[n1]", "zones=[zone-b] nodes=[n2]"));

    setTrafficDistribution("svc", null);
    await().untilAsserted(() -> assertThat(zoneHintsOf("s1")).containsExactly("none", "none"));
  }

  @Test
  void hintsFollowEndpointsAddedLater() throws Exception {
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    start(config());
    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[]"));

    client.resource(slice("s2", "svc", ready("10.0.0.9", "zone-c", "n9"))).create();

    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s2")).containsExactly("zones=[zone-c] nodes=[]"));
  }

  @Test
  void aConflictingWriteIsRetriedWithFreshState() throws Exception {
    server
        .expect()
        .put()
        .withPath(SLICES_PATH + "/s1")
        .andReturn(
            409,
            new StatusBuilder()
                .withCode(409)
                .withReason("Conflict")
                .withMessage("the object has been modified")
                .build())
        .once();
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();

    var replica = start(config());

    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[]"));
    // The hints are visible before the sync that wrote them has finished and counted itself.
    await().untilAsserted(() -> assertThat(replica.metrics().syncs("success")).isPositive());
    assertThat(replica.metrics().syncs("stale")).isEqualTo(1);
  }

  @Test
  void aFailedSyncRecordsAWarningEventAndIsRetried() throws Exception {
    server
        .expect()
        .put()
        .withPath(SLICES_PATH + "/s1")
        .andReturn(
            500, new StatusBuilder().withCode(500).withMessage("etcd is having a bad day").build())
        .once();
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();

    var replica = start(config());

    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[]"));
    assertThat(replica.metrics().syncs("error")).isEqualTo(1);
    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("test").list().getItems())
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason())
                              .isEqualTo(EventReasons.FAILED_TO_UPDATE_ENDPOINT_SLICES);
                          assertThat(event.getType()).isEqualTo("Warning");
                          assertThat(event.getMessage())
                              .startsWith("Error updating Endpoint Slices for Service test/svc:");
                          assertThat(event.getInvolvedObject().getName()).isEqualTo("svc");
                        }));
  }

  @Test
  void givesUpAfterTheRetryBudgetWithAWarningEvent() throws Exception {
    server
        .expect()
        .put()
        .withPath(SLICES_PATH + "/s1")
        .andReturn(500, new StatusBuilder().withCode(500).withMessage("still broken").build())
        .always();
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var oneRetry =
        new ControllerConfig(
            1,
            Duration.ZERO,
            1,
            ControllerConfig.LeaderElectionConfig.disabled(),
            OverwriteGuard.Policy.DEFAULT);

    var replica = start(oneRetry);

    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("test").list().getItems())
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason())
                              .isEqualTo(EventReasons.SYNC_RETRIES_EXHAUSTED);
                          assertThat(event.getMessage()).contains("still broken");
                        }));
    assertThat(replica.metrics().syncs("error")).isEqualTo(2);
  }

  @Test
  void aSteadyStateWritesNothingOnResyncOrRestart() throws Exception {
    for (var name : List.of("a", "b", "c")) {
      createService(name, "PreferSameNode");
      client
          .resource(
              slice(name + "-1", name, ready("10.0.1." + name.charAt(0) % 50, "zone-a", "n1")))
          .create();
    }
    var resyncing =
        new ControllerConfig(
            2,
            Duration.ofMillis(500),
            15,
            ControllerConfig.LeaderElectionConfig.disabled(),
            OverwriteGuard.Policy.DEFAULT);
    var first = start(resyncing);
    await()
        .untilAsserted(
            () ->
                assertThat(List.of("a-1", "b-1", "c-1"))
                    .allSatisfy(
                        s ->
                            assertThat(zoneHintsOf(s))
                                .containsExactly("zones=[zone-a] nodes=[n1]")));
    await().until(() -> first.metrics().syncs("success") >= 3);
    sliceWritesSinceLastCall();

    long before = first.metrics().syncs("success");
    await().until(() -> first.metrics().syncs("success") >= before + 6);
    assertThat(sliceWritesSinceLastCall()).as("writes during resyncs").isZero();

    first.controller().close();
    var restarted = start(resyncing);
    await().until(() -> restarted.metrics().syncs("success") >= 3);
    assertThat(sliceWritesSinceLastCall()).as("writes after a restart").isZero();
  }

  @Test
  void onlyTheLeaderWritesAndTheStandbyTakesOverWhenItLeaves() throws Exception {
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var first = start(config().withLeaderElection(election("first")));
    await().until(() -> first.controller().isLeader());
    var second = start(config().withLeaderElection(election("second")));
    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[]"));

    setTrafficDistribution("svc", "PreferSameNode");
    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[n1]"));
    assertThat(second.controller().isLeader()).isFalse();
    assertThat(second.metrics().syncs("success")).as("standby syncs").isZero();
    assertThat(second.controller().isReady()).as("standby readiness").isTrue();

    first.controller().close();
    await().atMost(Duration.ofSeconds(10)).until(() -> second.controller().isLeader());
    setTrafficDistribution("svc", null);
    await().untilAsserted(() -> assertThat(zoneHintsOf("s1")).containsExactly("none"));
    assertThat(second.metrics().syncs("success")).isPositive();
  }

  @Test
  void aReplicaThatLosesItsLeaseStopsWritingAtOnce() throws Exception {
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var lost = new AtomicBoolean();
    var replica = start(config().withLeaderElection(election("holder")), () -> lost.set(true));
    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("s1")).containsExactly("zones=[zone-a] nodes=[]"));

    // Another holder takes the Lease whatever its version: an edit (read, then a patch carrying
    // the version read) races the replica's own renewals and fails now and then with a conflict.
    client
        .leases()
        .inNamespace("test")
        .withName("proxima-test")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"holderIdentity\":\"intruder\",\"leaseDurationSeconds\":600,"
                + "\"renewTime\":\""
                + java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
                    .format(ZonedDateTime.now(java.time.ZoneOffset.UTC))
                + "\"}}");

    await().atMost(Duration.ofSeconds(10)).untilTrue(lost);
    assertThat(replica.controller().isLeader()).isFalse();
    sliceWritesSinceLastCall();
    setTrafficDistribution("svc", null);
    client
        .resource(
            slice("s2", "svc", withHints(ready("10.0.0.2", "zone-b", "n2"), zoneHint("zone-x"))))
        .create();
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> zoneHintsOf("s1").equals(List.of("zones=[zone-a] nodes=[]")));
    assertThat(sliceWritesSinceLastCall())
        .as("writes after losing the lease, besides the test's own create")
        .isEqualTo(1);
  }

  @Test
  void backsOffFromASliceAnotherWriterKeepsRevertingAndSaysSo() throws Exception {
    createService("svc", "PreferSameZone");
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    // A stand-in for an old controller that strips every hint it sees.
    var reverter =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace("test")
            .inform(
                new ResourceEventHandler<EndpointSlice>() {
                  @Override
                  public void onAdd(EndpointSlice slice) {
                    strip(slice);
                  }

                  @Override
                  public void onUpdate(EndpointSlice previous, EndpointSlice slice) {
                    strip(slice);
                  }

                  @Override
                  public void onDelete(EndpointSlice slice, boolean unknown) {}

                  private void strip(EndpointSlice slice) {
                    if (slice.getEndpoints().stream().allMatch(e -> e.getHints() == null)) {
                      return;
                    }
                    var stripped = new EndpointSliceBuilder(slice).build();
                    stripped.getEndpoints().forEach(e -> e.setHints(null));
                    try {
                      client.resource(stripped).update();
                    } catch (RuntimeException conflict) {
                      // Proxima wrote in between; the next event brings the newer version.
                    }
                  }
                });
    running.add(reverter::close);
    var replica =
        start(
            config()
                .withOverwritePolicy(
                    new OverwriteGuard.Policy(3, Duration.ofMinutes(1), Duration.ofMinutes(10))));

    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("test").list().getItems())
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason()).isEqualTo(EventReasons.HINTS_OVERWRITTEN);
                          assertThat(event.getType()).isEqualTo("Warning");
                          assertThat(event.getMessage()).contains("s1");
                        }));
    var writesSoFar =
        scrapeValue(replica, "proxima_controller_hint_writes_total{result=\"success\"}");
    assertThat(writesSoFar).isEqualTo(3.0);
    assertThat(scrapeValue(replica, "proxima_controller_hints_overwritten_total")).isEqualTo(1.0);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(
            () ->
                scrapeValue(replica, "proxima_controller_hint_writes_total{result=\"success\"}")
                    == 3.0);
  }

  @Test
  void reportsEventsAndMetricsOperatorsCanScrape() throws Exception {
    createService("zonal", "PreferSameZone");
    client.resource(slice("zonal-1", "zonal", ready("10.0.0.1", "zone-a", "n1"))).create();
    createService("odd", "PreferSameRack");
    client
        .resource(
            slice("odd-1", "odd", withHints(ready("10.0.0.2", "zone-a", "n1"), zoneHint("zone-a"))))
        .create();
    var replica = start(config());

    await().untilAsserted(() -> assertThat(zoneHintsOf("odd-1")).containsExactly("none"));
    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("test").list().getItems())
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason())
                              .isEqualTo(EventReasons.UNSUPPORTED_TRAFFIC_DISTRIBUTION);
                          assertThat(event.getInvolvedObject().getKind()).isEqualTo("Service");
                          assertThat(event.getInvolvedObject().getName()).isEqualTo("odd");
                          assertThat(event.getInvolvedObject().getUid()).isNotNull();
                        }));
    // The sync also writes the Service's conditions after its slices: wait until it finished.
    await()
        .until(
            () ->
                scrape(replica)
                    .contains("endpoint_slice_controller_endpointslices_changed_per_sync_count"));
    var text = scrape(replica);
    assertThat(text)
        .contains(
            "endpoint_slice_controller_services_count_by_traffic_distribution{traffic_distribution=\"PreferSameZone\"} 1")
        .doesNotContain("traffic_distribution=\"PreferSameRack\"")
        .contains("endpoint_slice_controller_changes{operation=\"update\"} 2")
        .contains("workqueue_adds_total{name=\"proxima_hints\"}")
        .contains("proxima_controller_reconcile_duration_seconds_count")
        .contains(
            "endpoint_slice_controller_endpointslices_changed_per_sync_count{topology=\"Disabled\",traffic_distribution=\"PreferSameZone\"}");
    assertThat(scrapeValue(replica, "endpoint_slice_controller_syncs{result=\"success\"}"))
        .isGreaterThanOrEqualTo(2.0);
  }

  @Test
  void leavesSlicesWithoutTheServiceNameLabelAndFqdnSlicesAlone() throws Exception {
    createService("svc", "PreferSameZone");
    var unlabelled =
        new EndpointSliceBuilder(
                slice(
                    "orphan",
                    "svc",
                    withHints(ready("10.0.0.1", "zone-a", "n1"), zoneHint("zone-x"))))
            .editMetadata()
            .withLabels(null)
            .endMetadata()
            .build();
    client.resource(unlabelled).create();
    client
        .resource(
            sliceOfType(
                "names",
                "svc",
                "FQDN",
                withHints(ready("db.example.com", "zone-a", "n1"), zoneHint("zone-x"))))
        .create();
    client.resource(slice("real", "svc", ready("10.0.0.3", "zone-b", "n3"))).create();
    start(config());

    await()
        .untilAsserted(
            () -> assertThat(zoneHintsOf("real")).containsExactly("zones=[zone-b] nodes=[]"));
    assertThat(zoneHintsOf("orphan")).containsExactly("zones=[zone-x] nodes=[]");
    assertThat(zoneHintsOf("names")).containsExactly("zones=[zone-x] nodes=[]");
  }

  @Test
  void servesHealthReadinessAndMetricsOverHttp() throws Exception {
    createService("svc", "PreferSameZone");
    var registry = new PrometheusRegistry();
    var controller =
        new HintController(
            client, config(), new ControllerMetrics(registry), Clock.systemUTC(), () -> {});
    running.add(controller);
    var probes =
        ProbeServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new InetSocketAddress("127.0.0.1", 0),
            registry,
            () -> true,
            controller::isReady);
    running.add(probes);
    var http = HttpClient.newHttpClient();

    assertThat(get(http, probes.port("/readyz"), "/readyz").statusCode())
        .as("before sync")
        .isEqualTo(503);
    assertThat(get(http, probes.port("/healthz"), "/healthz").statusCode()).isEqualTo(200);
    controller.start(Duration.ofSeconds(10));
    assertThat(get(http, probes.port("/readyz"), "/readyz").statusCode())
        .as("after sync")
        .isEqualTo(200);
    // The first sync (it writes the Service's conditions) may still be running: wait for it.
    await()
        .untilAsserted(
            () -> {
              var metrics = get(http, probes.port("/metrics"), "/metrics");
              assertThat(metrics.statusCode()).isEqualTo(200);
              assertThat(metrics.body()).contains("# TYPE endpoint_slice_controller_syncs");
            });
    controller.close();
    assertThat(get(http, probes.port("/readyz"), "/readyz").statusCode())
        .as("after stop")
        .isEqualTo(503);
  }

  @Test
  void probesAndMetricsAnswerPromptlyWhileManyConnectionsStall() throws Exception {
    var probes =
        ProbeServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new InetSocketAddress("127.0.0.1", 0),
            new PrometheusRegistry(),
            () -> true,
            () -> true);
    running.add(probes);

    for (var path : List.of("/healthz", "/readyz", "/metrics")) {
      int port = probes.port(path);
      try (var stalled = StalledClients.open("127.0.0.1", port, 5, 5)) {
        assertThat(StalledClients.getWithinThreeSeconds("127.0.0.1", port, path).statusCode())
            .as(path)
            .isEqualTo(200);
      }
    }
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String scrape(Replica replica) throws Exception {
    var out = new java.io.ByteArrayOutputStream();
    io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
        .write(out, replica.registry().scrape());
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static double scrapeValue(Replica replica, String series) throws Exception {
    return scrape(replica)
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .map(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElse(Double.NaN);
  }
}
