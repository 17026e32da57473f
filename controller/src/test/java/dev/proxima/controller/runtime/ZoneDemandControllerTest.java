package dev.proxima.controller.runtime;

import static dev.proxima.controller.testing.Fixtures.node;
import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.model.Annotations;
import dev.proxima.model.ServiceConditions;
import dev.proxima.model.ZoneDemand;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The live controller publishes the zones' demand in its namespace's ConfigMap and shows each
 * opted-in Service's spill-over in its conditions, against the CRUD mock.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ZoneDemandControllerTest {
  private static final String NAMESPACE = "proxima-system";

  KubernetesClient client;
  KubernetesMockServer server;

  private HintController controller;
  private ControllerMetrics metrics;

  @AfterEach
  void stop() {
    if (controller != null) {
      controller.close();
    }
  }

  private void start() throws Exception {
    metrics = new ControllerMetrics(new PrometheusRegistry());
    var config =
        new ControllerConfig(
            2,
            Duration.ofMillis(300),
            15,
            ControllerConfig.LeaderElectionConfig.disabledIn(NAMESPACE),
            OverwriteGuard.Policy.DEFAULT,
            SliceScope.Slices.ALL);
    controller = new HintController(client, config, metrics, Clock.systemUTC(), () -> {});
    controller.start(Duration.ofSeconds(10));
  }

  private Map<String, String> published() {
    var stored =
        client.configMaps().inNamespace(NAMESPACE).withName(ZoneDemand.CONFIG_MAP_NAME).get();
    return stored == null ? null : stored.getData() == null ? Map.of() : stored.getData();
  }

  private String spillOver(String service) {
    var stored = client.services().inNamespace("test").withName(service).get();
    if (stored.getStatus() == null || stored.getStatus().getConditions() == null) {
      return "absent";
    }
    return stored.getStatus().getConditions().stream()
        .filter(c -> ServiceConditions.ZONE_SPILL_OVER.equals(c.getType()))
        .map(c -> c.getStatus() + " " + c.getReason() + ": " + c.getMessage())
        .findFirst()
        .orElse("absent");
  }

  private int configMapWritesSinceLastCall() throws InterruptedException {
    int writes = 0;
    io.fabric8.mockwebserver.http.RecordedRequest request;
    while ((request = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      if (!"GET".equals(request.getMethod()) && request.getPath().contains("/configmaps")) {
        writes++;
      }
    }
    return writes;
  }

  /** Zone a holds half the CPU but 2 of the 10 endpoints. */
  private void createCrowdedZone() {
    client.resource(node("node-a", "zone-a", "8")).create();
    client.resource(node("node-b", "zone-b", "4")).create();
    client.resource(node("node-c", "zone-c", "4")).create();
    var endpoints = new ArrayList<Endpoint>();
    int ip = 1;
    for (var zone : Map.of("zone-a", 2, "zone-b", 4, "zone-c", 4).entrySet()) {
      for (int i = 0; i < zone.getValue(); i++) {
        endpoints.add(ready("10.0.0." + ip++, zone.getKey(), "node-" + zone.getKey()));
      }
    }
    client
        .resource(service("svc", "PreferSameZone", Map.of(Annotations.ZONE_SPILL_OVER, "true")))
        .create();
    client.resource(slice("svc-1", "svc", endpoints.toArray(Endpoint[]::new))).create();
  }

  @Test
  void theDemandIsPublishedOnceFollowsTheNodesAndTheConditionShowsTheFractions() throws Exception {
    createCrowdedZone();

    start();

    await()
        .untilAsserted(
            () ->
                assertThat(published())
                    .isEqualTo(Map.of("zone-a", "0.500", "zone-b", "0.250", "zone-c", "0.250")));
    await()
        .untilAsserted(
            () ->
                assertThat(spillOver("svc"))
                    .startsWith("True Spilling: ")
                    .contains("zone-a 37.5%, zone-b 100%, zone-c 100%"));
    var stored =
        client.configMaps().inNamespace(NAMESPACE).withName(ZoneDemand.CONFIG_MAP_NAME).get();
    assertThat(stored.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "proxima-controller");

    // Resyncs every 300 ms and a Node change that moves no share write nothing.
    configMapWritesSinceLastCall();
    long before = metrics.syncs("success");
    client
        .nodes()
        .withName("node-a")
        .edit(
            n -> {
              n.getMetadata().setLabels(new java.util.HashMap<>(n.getMetadata().getLabels()));
              n.getMetadata().getLabels().put("example.com/unrelated", "x");
              return n;
            });
    await().until(() -> metrics.syncs("success") >= before + 4);
    assertThat(configMapWritesSinceLastCall()).as("ConfigMap writes").isZero();

    // Zone b grows: the object and the condition follow.
    client
        .nodes()
        .withName("node-b")
        .edit(
            n -> {
              n.getStatus().setAllocatable(Map.of("cpu", new Quantity("12")));
              return n;
            });
    await()
        .untilAsserted(
            () ->
                assertThat(published())
                    .isEqualTo(Map.of("zone-a", "0.333", "zone-b", "0.500", "zone-c", "0.167")));
    await()
        .untilAsserted(
            () -> assertThat(spillOver("svc")).contains("zone-a 62.6%, zone-b 83.4%, zone-c 100%"));
  }

  @Test
  void aStaleObjectLeftFromBeforeIsReplacedKeepingWhatOthersAddedToItsMetadata() throws Exception {
    createCrowdedZone();
    client
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(ZoneDemand.CONFIG_MAP_NAME)
                .withNamespace(NAMESPACE)
                .withAnnotations(Map.of("example.com/note", "kept"))
                .endMetadata()
                .withData(Map.of("zone-x", "1.000"))
                .build())
        .create();

    start();

    await()
        .untilAsserted(
            () ->
                assertThat(published())
                    .isEqualTo(Map.of("zone-a", "0.500", "zone-b", "0.250", "zone-c", "0.250")));
    assertThat(
            client
                .configMaps()
                .inNamespace(NAMESPACE)
                .withName(ZoneDemand.CONFIG_MAP_NAME)
                .get()
                .getMetadata()
                .getAnnotations())
        .containsEntry("example.com/note", "kept");
  }

  @Test
  void withoutNodeInformationTheDemandIsPublishedEmptyAndTheConditionSaysSo() throws Exception {
    createCrowdedZone();
    client.nodes().withName("node-c").delete();
    client.nodes().withName("node-b").delete();

    start();

    await().untilAsserted(() -> assertThat(published()).isEmpty());
    await().untilAsserted(() -> assertThat(spillOver("svc")).startsWith("False DemandUnknown"));
  }
}
