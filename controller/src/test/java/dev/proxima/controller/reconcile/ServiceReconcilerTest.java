package dev.proxima.controller.reconcile;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.kube.KubeSliceWriter;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The reconciler against the CRUD mock, with the cache view controlled by the test. */
@EnableKubernetesMockClient(crud = true, https = false)
class ServiceReconcilerTest {
  KubernetesClient client;
  KubernetesMockServer server;

  private final List<PlannedEvent> events = new ArrayList<>();
  private boolean statusForbidden;
  private final List<List<io.fabric8.kubernetes.api.model.Condition>> conditionWrites =
      new ArrayList<>();
  private final ControllerMetrics metrics = new ControllerMetrics(new PrometheusRegistry());

  private ServiceReconciler reconcilerSeeing(Service service, List<EndpointSlice> slices) {
    return reconcilerSeeing(service, slices, true);
  }

  private ServiceReconciler reconcilerSeeing(
      Service service, List<EndpointSlice> slices, boolean mayWrite) {
    ClusterView view =
        new ClusterView() {
          @Override
          public Optional<Service> service(ObjectKey key) {
            return Optional.ofNullable(service);
          }

          @Override
          public List<EndpointSlice> slicesOf(ObjectKey key) {
            return slices;
          }

          @Override
          public List<io.fabric8.kubernetes.api.model.Node> nodes() {
            return List.of();
          }
        };
    return new ServiceReconciler(
        view,
        new KubeSliceWriter(client, () -> mayWrite),
        (read, conditions) -> {
          if (statusForbidden) {
            throw new io.fabric8.kubernetes.client.KubernetesClientException(
                "services \"svc\" is forbidden", 403, null);
          }
          conditionWrites.add(conditions);
        },
        events::add,
        metrics,
        new OverwriteGuard(OverwriteGuard.Policy.DEFAULT, Clock.systemUTC()),
        new dev.proxima.controller.hints.HintPlanner(),
        Clock.systemUTC());
  }

  private EndpointSlice stored(String name) {
    return client.discovery().v1().endpointSlices().inNamespace("test").withName(name).get();
  }

  @Test
  void writesHintsOntoTheStoredSlice() {
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();

    var retry =
        reconcilerSeeing(service("svc", "PreferSameZone"), List.of(created))
            .reconcile(new ObjectKey("test", "svc"));

    assertThat(retry).isEmpty();
    assertThat(stored("s1").getEndpoints().get(0).getHints().getForZones())
        .extracting(zone -> zone.getName())
        .containsExactly("zone-a");
  }

  @Test
  void aSliceChangedSinceItWasReadFailsWithAConflictAndIsNotOverwritten() {
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var newer =
        client
            .resource(
                new EndpointSliceBuilder(created)
                    .editMetadata()
                    .addToAnnotations("changed", "by-someone-else")
                    .endMetadata()
                    .build())
            .update();

    var reconciler = reconcilerSeeing(service("svc", "PreferSameZone"), List.of(created));

    assertThatThrownBy(() -> reconciler.reconcile(new ObjectKey("test", "svc")))
        .isInstanceOf(SliceWriter.WriteConflictException.class);
    assertThat(stored("s1").getMetadata().getResourceVersion())
        .isEqualTo(newer.getMetadata().getResourceVersion());
    assertThat(stored("s1").getEndpoints().get(0).getHints()).isNull();
  }

  @Test
  void aCacheThatHasNotSeenItsOwnSliceWriteYetDoesNotWriteTheSliceAgain() {
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    // The same cache for both passes: the second comes before the watch delivers the first's write.
    var reconciler = reconcilerSeeing(service("svc", "PreferSameZone"), List.of(created));
    reconciler.reconcile(new ObjectKey("test", "svc"));
    var written = stored("s1").getMetadata().getResourceVersion();
    int requestsBefore = server.getRequestCount();

    var retry = reconciler.reconcile(new ObjectKey("test", "svc"));
    int requestsSent = server.getRequestCount() - requestsBefore;

    assertThat(requestsSent).as("requests the second pass sent").isZero();
    assertThat(retry).contains(OverwriteGuard.CACHE_CATCH_UP);
    assertThat(reconciler.slicesWritten()).isEqualTo(1);
    assertThat(stored("s1").getMetadata().getResourceVersion()).isEqualTo(written);
  }

  @Test
  void aSliceDeletedMidReconcileIsSkippedWhileTheOthersAreWritten() {
    var doomed =
        client.resource(slice("a-gone", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var kept = client.resource(slice("b-kept", "svc", ready("10.0.0.2", "zone-b", "n2"))).create();
    client.resource(doomed).delete();

    var retry =
        reconcilerSeeing(service("svc", "PreferSameZone"), List.of(doomed, kept))
            .reconcile(new ObjectKey("test", "svc"));

    assertThat(retry).isEmpty();
    assertThat(stored("b-kept").getEndpoints().get(0).getHints()).isNotNull();
  }

  @Test
  void aServiceDeletedWhileQueuedIsANoOp() {
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();

    var retry = reconcilerSeeing(null, List.of(created)).reconcile(new ObjectKey("test", "svc"));

    assertThat(retry).isEmpty();
    assertThat(stored("s1").getMetadata().getResourceVersion())
        .isEqualTo(created.getMetadata().getResourceVersion());
  }

  @Test
  void aWriterThatIsNotTheLeaderNeverReachesTheApiServer() {
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();
    var reconciler = reconcilerSeeing(service("svc", "PreferSameZone"), List.of(created), false);

    assertThatThrownBy(() -> reconciler.reconcile(new ObjectKey("test", "svc")))
        .isInstanceOf(SliceWriter.NotLeaderException.class);
    assertThat(stored("s1").getEndpoints().get(0).getHints()).isNull();
  }

  @Test
  void aServiceStatusTheControllerMayNotPatchLeavesTheHintsWrittenAndTheSyncSuccessful() {
    statusForbidden = true;
    var created = client.resource(slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"))).create();

    var retry =
        reconcilerSeeing(service("svc", "PreferSameZone"), List.of(created))
            .reconcile(new ObjectKey("test", "svc"));

    assertThat(retry).isEmpty();
    assertThat(stored("s1").getEndpoints().get(0).getHints()).isNotNull();
  }

  @Test
  void aCacheThatHasNotSeenTheConditionsWrittenYetDoesNotWriteThemAgain() {
    var svc = service("svc", "PreferSameZone");
    svc.getMetadata().setResourceVersion("7");
    var hinted =
        slice(
            "s1",
            "svc",
            dev.proxima.controller.testing.Fixtures.withHints(
                ready("10.0.0.1", "zone-a", "n1"),
                dev.proxima.controller.testing.Fixtures.zoneHint("zone-a")));
    var reconciler = reconcilerSeeing(svc, List.of(hinted));

    reconciler.reconcile(new ObjectKey("test", "svc"));
    reconciler.reconcile(new ObjectKey("test", "svc"));

    assertThat(conditionWrites).hasSize(1);
    assertThat(conditionWrites.get(0))
        .extracting(io.fabric8.kubernetes.api.model.Condition::getReason)
        .containsExactly("Accepted", "Programmed");
  }
}
