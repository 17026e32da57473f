package dev.proxima.controller.kube;

import dev.proxima.controller.reconcile.ServiceStatusWriter;
import dev.proxima.controller.reconcile.SliceWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Writes conditions with a JSON patch (RFC 6902) on the Service's status subresource, replacing the
 * whole list (other writers' conditions included, as read) and carrying the resourceVersion they
 * were computed from, so a concurrent change fails with a conflict instead of being lost. A JSON
 * patch rather than a merge patch because the CRUD mock appends lists in merge patches where a real
 * API server replaces them; strategic merge is not supported by the mock at all. Only {@code
 * services/status} patch is needed: no get, no update.
 */
public final class KubeServiceStatusWriter implements ServiceStatusWriter {
  // A JSON patch whose path vanished (the status was reset meanwhile) is refused as invalid.
  private static final int UNPROCESSABLE = 422;

  private final KubernetesClient client;
  private final BooleanSupplier mayWrite;
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  public KubeServiceStatusWriter(KubernetesClient client, BooleanSupplier mayWrite) {
    this.client = client;
    this.mayWrite = mayWrite;
  }

  private static Map<String, Object> op(String op, String path, Object value) {
    var result = new LinkedHashMap<String, Object>();
    result.put("op", op);
    result.put("path", path);
    result.put("value", value);
    return result;
  }

  @Override
  public void writeConditions(Service read, List<Condition> conditions) {
    if (!mayWrite.getAsBoolean()) {
      throw new SliceWriter.NotLeaderException();
    }
    var metadata = read.getMetadata();
    var patch = new ArrayList<Map<String, Object>>();
    if (metadata.getResourceVersion() != null) {
      // The API server checks the resourceVersion of the patched object: a Service changed since
      // it was read fails with a conflict instead of losing another writer's conditions.
      patch.add(op("replace", "/metadata/resourceVersion", metadata.getResourceVersion()));
    }
    patch.add(
        read.getStatus() == null
            ? op("add", "/status", Map.of("conditions", conditions))
            : op("add", "/status/conditions", conditions));
    var name = metadata.getNamespace() + "/" + metadata.getName();
    try {
      client
          .services()
          .inNamespace(metadata.getNamespace())
          // resource(read), not withName(name): given the object, fabric8 sends the patch without
          // reading the Service first, which would need services get.
          .resource(read)
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON), serialization.asJson(patch));
    } catch (KubernetesClientException failure) {
      if (failure.getCode() == HttpURLConnection.HTTP_CONFLICT
          || failure.getCode() == HttpURLConnection.HTTP_NOT_FOUND
          || failure.getCode() == UNPROCESSABLE) {
        // Gone or changed: the informer brings the new state, and with it another sync.
        throw new SliceWriter.WriteConflictException(
            "Service " + name + " changed since its conditions were planned", failure);
      }
      throw failure;
    }
  }
}
