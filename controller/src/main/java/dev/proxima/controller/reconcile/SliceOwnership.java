package dev.proxima.controller.reconcile;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Optional;

/** Which Service a slice belongs to: the one its service-name label names, in its namespace. */
public final class SliceOwnership {
  private SliceOwnership() {}

  public static Optional<ObjectKey> serviceOf(EndpointSlice slice) {
    var labels = slice.getMetadata().getLabels();
    var name = labels == null ? null : labels.get(Labels.SERVICE_NAME);
    if (name == null || name.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ObjectKey(slice.getMetadata().getNamespace(), name));
  }
}
