package dev.proxima.proxy.track;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PendingChangesTest {
  private static final ObjectKey WEB = new ObjectKey("ns", "web");
  private static final ObjectKey API = new ObjectKey("ns", "api");
  private static final ObjectKey SLICE = new ObjectKey("ns", "web-1");

  private final PendingChanges changes = new PendingChanges(Instant.parse("2026-01-01T10:00:00Z"));

  @Test
  void aSlicesChangeNamesTheServiceItsLabelNames() {
    changes.sliceChanged(SLICE, null, ApiObjects.slice("ns", "web", "10.0.0.1"));

    assertThat(changes.pendingSlices()).isEqualTo(1);
    assertThat(changes.drainChangedServices()).containsExactly(WEB);
    assertThat(changes.pendingSlices()).as("drained").isZero();
  }

  @Test
  void aSliceRelabelledToAnotherServiceNamesBothServices() {
    var before = ApiObjects.slice("ns", "web", "10.0.0.1");
    var after =
        new EndpointSliceBuilder(before)
            .editMetadata()
            .addToLabels(Labels.SERVICE_NAME, "api")
            .endMetadata()
            .build();

    changes.sliceChanged(SLICE, before, after);

    assertThat(changes.drainChangedServices()).containsExactlyInAnyOrder(WEB, API);
  }

  @Test
  void aServiceChangedAndChangedBackIsNotPending() {
    var service = ApiObjects.service("ns", "web", "10.96.0.10").build();
    var changed = ApiObjects.service("ns", "web", "10.96.0.11").build();

    assertThat(changes.serviceChanged(WEB, service, changed)).isEqualTo(1);
    assertThat(changes.serviceChanged(WEB, changed, service)).isZero();

    assertThat(changes.drainChangedServices()).isEmpty();
  }

  @Test
  void aServiceAndItsSliceChangedAreOneServiceToPlan() {
    changes.serviceChanged(WEB, null, ApiObjects.service("ns", "web", "10.96.0.10").build());
    changes.sliceChanged(SLICE, null, ApiObjects.slice("ns", "web", "10.0.0.1"));

    assertThat(changes.drainChangedServices()).containsExactly(WEB);
  }
}
