package dev.proxima.controller.runtime;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.testing.Fixtures;
import dev.proxima.model.ServiceConditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The live controller keeps the Service conditions against the CRUD mock: written, updated,
 * removed, and never rewritten on resync; and {@code --slices} leaves kube-controller-manager's
 * slices alone when the server's release hints them itself.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ServiceConditionsTest {
  KubernetesClient client;
  KubernetesMockServer server;

  private final List<AutoCloseable> running = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  private ControllerMetrics start(SliceScope.Slices slices) throws Exception {
    var metrics = new ControllerMetrics(new PrometheusRegistry());
    var config =
        new ControllerConfig(
            2,
            Duration.ofMillis(300),
            15,
            ControllerConfig.LeaderElectionConfig.disabled(),
            OverwriteGuard.Policy.DEFAULT,
            slices);
    var controller = new HintController(client, config, metrics, Clock.systemUTC(), () -> {});
    running.add(controller);
    controller.start(Duration.ofSeconds(10));
    return metrics;
  }

  private Optional<Condition> condition(String service, String type) {
    var stored = client.services().inNamespace("test").withName(service).get();
    if (stored.getStatus() == null || stored.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return stored.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  private String summary(String service, String type) {
    return condition(service, type).map(c -> c.getStatus() + " " + c.getReason()).orElse("absent");
  }

  private void setTrafficDistribution(String name, String value) {
    Fixtures.setTrafficDistribution(client, name, value);
  }

  private int statusWritesSinceLastCall() throws InterruptedException {
    int writes = 0;
    io.fabric8.mockwebserver.http.RecordedRequest request;
    while ((request = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      if (!"GET".equals(request.getMethod())
          && request.getPath().matches("/api/v1/namespaces/test/services/[^/]+/status.*")) {
        writes++;
      }
    }
    return writes;
  }

  @Test
  void conditionsAreWrittenUpdatedNeverRewrittenOnResyncAndRemovedWhenNotAsked() throws Exception {
    var foreign =
        new ConditionBuilder()
            .withType("example.com/Other")
            .withStatus("True")
            .withReason("Theirs")
            .withMessage("kept")
            .withLastTransitionTime("2026-01-01T00:00:00Z")
            .build();
    var created =
        client
            .resource(
                new ServiceBuilder(service("svc", "PreferSameZone"))
                    .editMetadata()
                    .withGeneration(3L)
                    .endMetadata()
                    .withNewStatus()
                    .withConditions(foreign)
                    .endStatus()
                    .build())
            .create();
    client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var metrics = start(SliceScope.Slices.ALL);

    await()
        .untilAsserted(
            () -> {
              assertThat(summary("svc", ServiceConditions.ACCEPTED)).isEqualTo("True Accepted");
              assertThat(summary("svc", ServiceConditions.PROGRAMMED)).isEqualTo("True Programmed");
            });
    var programmed = condition("svc", ServiceConditions.PROGRAMMED).orElseThrow();
    assertThat(programmed.getObservedGeneration())
        .isEqualTo(
            client
                .services()
                .inNamespace("test")
                .withName("svc")
                .get()
                .getMetadata()
                .getGeneration());
    assertThat(condition("svc", "example.com/Other")).contains(foreign);

    // Resyncs every 300 ms: a few of them must send no status patch at all.
    statusWritesSinceLastCall();
    long before = metrics.syncs("success");
    await().until(() -> metrics.syncs("success") >= before + 4);
    assertThat(statusWritesSinceLastCall()).as("status writes during resyncs").isZero();

    setTrafficDistribution("svc", "PreferSameRack");
    await()
        .untilAsserted(
            () -> {
              assertThat(summary("svc", ServiceConditions.ACCEPTED))
                  .isEqualTo("False UnsupportedValue");
              assertThat(summary("svc", ServiceConditions.PROGRAMMED))
                  .isEqualTo("False NotAccepted");
            });

    setTrafficDistribution("svc", null);
    await()
        .untilAsserted(
            () -> {
              assertThat(summary("svc", ServiceConditions.ACCEPTED)).isEqualTo("absent");
              assertThat(summary("svc", ServiceConditions.PROGRAMMED)).isEqualTo("absent");
            });
    assertThat(condition("svc", "example.com/Other")).contains(foreign);
    assertThat(created).isNotNull();
  }

  @Test
  void autoLeavesKubeControllerManagersSlicesToItForValuesItsReleaseImplements() throws Exception {
    server.setVersionInfo(new VersionInfo.Builder().withMajor("1").withMinor("33").build());
    client.resource(service("close", "PreferClose")).create();
    client.resource(slice("close-1", "close", ready("10.0.0.1", "zone-a", "n1"))).create();
    client.resource(service("same", "PreferSameZone")).create();
    client.resource(slice("same-1", "same", ready("10.0.0.2", "zone-a", "n1"))).create();
    var mirrored = slice("same-2", "same", ready("10.0.0.3", "zone-b", "n2"));
    mirrored
        .getMetadata()
        .setLabels(
            Map.of(
                "kubernetes.io/service-name",
                "same",
                "endpointslice.kubernetes.io/managed-by",
                "endpointslicemirroring-controller.k8s.io"));
    client.resource(mirrored).create();

    start(SliceScope.Slices.AUTO);

    // 1.33's KCM hints PreferClose itself but not PreferSameZone (KCM's from 1.35).
    await()
        .untilAsserted(
            () -> {
              assertThat(hinted("same-1")).isTrue();
              assertThat(hinted("same-2")).isTrue();
              assertThat(summary("close", ServiceConditions.PROGRAMMED))
                  .isEqualTo("False ManagedByKubeControllerManager");
              assertThat(summary("same", ServiceConditions.PROGRAMMED))
                  .isEqualTo("True Programmed");
            });
    assertThat(hinted("close-1")).as("KCM's slice for PreferClose").isFalse();
    assertThat(condition("close", ServiceConditions.PROGRAMMED).orElseThrow().getMessage())
        .contains("close-1")
        .contains("--slices=auto (server 1.33)");

    // KCM writes the hints it owns: the condition follows.
    var kcmSlice =
        client.discovery().v1().endpointSlices().inNamespace("test").withName("close-1").get();
    client
        .resource(
            new EndpointSliceBuilder(kcmSlice)
                .editFirstEndpoint()
                .withNewHints()
                .addNewForZone("zone-a")
                .endHints()
                .endEndpoint()
                .build())
        .update();
    await()
        .untilAsserted(
            () ->
                assertThat(summary("close", ServiceConditions.PROGRAMMED))
                    .isEqualTo("True Programmed"));
  }

  @Test
  void unmanagedNeverWritesKubeControllerManagersSlices() throws Exception {
    client.resource(service("same", "PreferSameZone")).create();
    client.resource(slice("same-1", "same", ready("10.0.0.2", "zone-a", "n1"))).create();

    start(SliceScope.Slices.UNMANAGED);

    await()
        .untilAsserted(
            () ->
                assertThat(summary("same", ServiceConditions.PROGRAMMED))
                    .isEqualTo("False ManagedByKubeControllerManager"));
    assertThat(hinted("same-1")).isFalse();
  }

  private boolean hinted(String slice) {
    var stored = client.discovery().v1().endpointSlices().inNamespace("test").withName(slice).get();
    return stored.getEndpoints().get(0).getHints() != null;
  }
}
