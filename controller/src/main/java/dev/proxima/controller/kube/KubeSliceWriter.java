package dev.proxima.controller.kube;

import dev.proxima.controller.reconcile.SliceWriter;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.function.BooleanSupplier;

/**
 * Writes slices with a full update carrying the resourceVersion they were planned from, so a change
 * made in between fails with a conflict instead of being overwritten.
 */
public final class KubeSliceWriter implements SliceWriter {
  private final KubernetesClient client;
  private final BooleanSupplier mayWrite;

  /**
   * @param mayWrite consulted before every write, so a replica that loses the Lease stops at once
   */
  public KubeSliceWriter(KubernetesClient client, BooleanSupplier mayWrite) {
    this.client = client;
    this.mayWrite = mayWrite;
  }

  @Override
  public EndpointSlice update(EndpointSlice desired) {
    if (!mayWrite.getAsBoolean()) {
      throw new NotLeaderException();
    }
    var name = desired.getMetadata().getNamespace() + "/" + desired.getMetadata().getName();
    try {
      return client
          .discovery()
          .v1()
          .endpointSlices()
          .inNamespace(desired.getMetadata().getNamespace())
          .resource(desired)
          .update();
    } catch (KubernetesClientException failure) {
      if (failure.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        throw new WriteConflictException(
            "EndpointSlice " + name + " changed since it was read", failure);
      }
      if (failure.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        throw new SliceGoneException("EndpointSlice " + name + " no longer exists", failure);
      }
      throw failure;
    }
  }
}
