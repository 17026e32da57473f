package dev.proxima.controller.runtime;

import static dev.proxima.controller.testing.Fixtures.node;
import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The topology-mode Auto heuristic in the live controller, with Nodes on the CRUD mock. */
@EnableKubernetesMockClient(crud = true, https = false)
class AutoHintsControllerTest {
  KubernetesClient client;
  KubernetesMockServer server;

  private HintController controller;
  private final PrometheusRegistry registry = new PrometheusRegistry();

  @AfterEach
  void stop() {
    if (controller != null) {
      controller.close();
    }
  }

  private void start() throws Exception {
    controller =
        new HintController(
            client,
            ControllerConfig.defaults(),
            new ControllerMetrics(registry),
            Clock.systemUTC(),
            () -> {});
    controller.start(Duration.ofSeconds(10));
  }

  private void createAutoService() {
    client.resource(service("svc", null, Map.of(Annotations.TOPOLOGY_MODE, "Auto"))).create();
  }

  private List<String> hintsOf(String slice) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace("test")
        .withName(slice)
        .get()
        .getEndpoints()
        .stream()
        .map(AutoHintsControllerTest::describe)
        .toList();
  }

  private static String describe(Endpoint endpoint) {
    var hints = endpoint.getHints();
    return hints == null
        ? "none"
        : String.join(",", hints.getForZones().stream().map(z -> z.getName()).toList());
  }

  private void awaitEvent(String reason, String messageStart) {
    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("test").list().getItems())
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason()).isEqualTo(reason);
                          assertThat(event.getMessage()).startsWith(messageStart);
                          assertThat(event.getInvolvedObject().getName()).isEqualTo("svc");
                        }));
  }

  /**
   * Three 4-CPU nodes in zones a, b and c, an Auto Service, and slice s1 with one endpoint per
   * zone.
   */
  private void givenThreeEqualZonesWithOneEndpointEach() {
    for (var zone : List.of("a", "b", "c")) {
      client.resource(node("node-" + zone, "zone-" + zone, "4")).create();
    }
    createAutoService();
    client
        .resource(
            slice(
                "s1",
                "svc",
                ready("10.0.0.1", "zone-a", "node-a"),
                ready("10.0.0.2", "zone-b", "node-b"),
                ready("10.0.0.3", "zone-c", "node-c")))
        .create();
  }

  @Test
  void aBalancedServiceGetsSameZoneHintsAndAnEnabledEvent() throws Exception {
    givenThreeEqualZonesWithOneEndpointEach();

    start();

    await()
        .untilAsserted(
            () -> assertThat(hintsOf("s1")).containsExactly("zone-a", "zone-b", "zone-c"));
    awaitEvent(
        "TopologyAwareHintsEnabled", "Topology Aware Hints has been enabled, addressType: IPv4");
  }

  @Test
  void aZoneLosingItsLastNodeRemovesTheHintsWithAWarning() throws Exception {
    client.resource(node("node-a", "zone-a", "4")).create();
    client.resource(node("node-b", "zone-b", "4")).create();
    createAutoService();
    client
        .resource(
            slice(
                "s1",
                "svc",
                ready("10.0.0.1", "zone-a", "node-a"),
                ready("10.0.0.2", "zone-b", "node-b")))
        .create();
    start();
    await().untilAsserted(() -> assertThat(hintsOf("s1")).containsExactly("zone-a", "zone-b"));

    client.nodes().withName("node-b").delete();

    await().untilAsserted(() -> assertThat(hintsOf("s1")).containsExactly("none", "none"));
    awaitEvent(
        "TopologyAwareHintsDisabled",
        "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4");
    await()
        .untilAsserted(
            () ->
                assertThat(scrape())
                    .contains(
                        "proxima_controller_hint_removals_total{reason=\"InsufficientNodeInfo\"} 1.0")
                    .contains("proxima_controller_services_by_hint_mode{mode=\"Auto\"} 1")
                    .contains(
                        "endpoint_slice_controller_endpointslices_changed_per_sync_count{topology=\"Auto\",traffic_distribution=\"\"}"));
  }

  @Test
  void aZoneLabelThatArrivesLateBringsTheHintsBackWithoutAnyOtherChangeAndEndsTheDisabledState()
      throws Exception {
    client.resource(node("node-a", "zone-a", "4")).create();
    client.resource(node("node-b", null, "4")).create();
    createAutoService();
    client
        .resource(
            slice(
                "s1",
                "svc",
                ready("10.0.0.1", "zone-a", "node-a"),
                ready("10.0.0.2", "zone-b", "node-b")))
        .create();
    start();
    awaitEvent("TopologyAwareHintsDisabled", "Insufficient Node information");
    assertThat(hintsOf("s1")).containsExactly("none", "none");
    assertThat(scrape())
        .contains("proxima_controller_services_hints_disabled{reason=\"InsufficientNodeInfo\"} 1")
        .contains("proxima_controller_services_hints_disabled{reason=\"NoZoneSpecified\"} 0");

    client
        .nodes()
        .withName("node-b")
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToLabels(Labels.ZONE, "zone-b")
                    .endMetadata()
                    .build());

    await().untilAsserted(() -> assertThat(hintsOf("s1")).containsExactly("zone-a", "zone-b"));
    await()
        .untilAsserted(
            () ->
                assertThat(scrape())
                    .contains(
                        "proxima_controller_services_hints_disabled{reason=\"InsufficientNodeInfo\"} 0"));
  }

  @Test
  void scalingKeepsValidHintsStickyAndRebalancesTheRest() throws Exception {
    givenThreeEqualZonesWithOneEndpointEach();
    start();
    await()
        .untilAsserted(
            () -> assertThat(hintsOf("s1")).containsExactly("zone-a", "zone-b", "zone-c"));
    var s1Version =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace("test")
            .withName("s1")
            .get()
            .getMetadata()
            .getResourceVersion();

    // Scale up: zone-a gets 4 more endpoints, so it now has more than its share.
    client
        .resource(
            slice(
                "s2",
                "svc",
                ready("10.0.1.1", "zone-a", "node-a"),
                ready("10.0.1.2", "zone-a", "node-a"),
                ready("10.0.1.3", "zone-a", "node-a"),
                ready("10.0.1.4", "zone-a", "node-a")))
        .create();

    await()
        .untilAsserted(
            () -> {
              var all = new java.util.ArrayList<>(hintsOf("s1"));
              all.addAll(hintsOf("s2"));
              assertThat(all).doesNotContain("none");
              assertThat(all.stream().filter("zone-a"::equals).count())
                  .as("zone-a keeps at most its maximum")
                  .isLessThanOrEqualTo(3);
              assertThat(all.stream().filter("zone-b"::equals).count()).isGreaterThanOrEqualTo(2);
              assertThat(all.stream().filter("zone-c"::equals).count()).isGreaterThanOrEqualTo(2);
            });
    assertThat(
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace("test")
                .withName("s1")
                .get()
                .getMetadata()
                .getResourceVersion())
        .as("the valid slice stayed untouched")
        .isEqualTo(s1Version);

    // Scale down: s1's hints are still a valid allocation on their own, so they stay as written.
    client.discovery().v1().endpointSlices().inNamespace("test").withName("s2").delete();
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace("test")
                            .withName("s1")
                            .get()
                            .getMetadata()
                            .getResourceVersion())
                    .isEqualTo(s1Version));
    assertThat(hintsOf("s1")).containsExactly("zone-a", "zone-b", "zone-c");
  }

  private String scrape() throws Exception {
    var out = new java.io.ByteArrayOutputStream();
    io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
        .write(out, registry.scrape());
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }
}
