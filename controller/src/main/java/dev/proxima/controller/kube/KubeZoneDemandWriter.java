package dev.proxima.controller.kube;

import dev.proxima.controller.reconcile.SliceWriter.NotLeaderException;
import dev.proxima.controller.reconcile.SliceWriter.WriteConflictException;
import dev.proxima.controller.reconcile.ZoneDemandPublisher;
import dev.proxima.model.ZoneDemand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.BooleanSupplier;

/**
 * Keeps the zone-demand ConfigMap in the controller's namespace. The first write of a replica
 * creates it, or, when it exists, reads it and replaces it only if it holds other data; later
 * writes update the object as last stored, carrying its resourceVersion, so a concurrent edit fails
 * with a conflict and is retried from the top. Calls: configmaps create, and get and update on the
 * one name.
 */
public final class KubeZoneDemandWriter implements ZoneDemandPublisher.Writer {
  private static final Map<String, String> LABELS =
      Map.of(
          "app.kubernetes.io/name", "proxima-controller",
          "app.kubernetes.io/part-of", "proxima",
          "app.kubernetes.io/managed-by", "proxima-controller");

  private final KubernetesClient client;
  private final String namespace;
  private final BooleanSupplier mayWrite;
  // The object as this replica last stored or read it; null when unknown.
  private ConfigMap stored;

  public KubeZoneDemandWriter(KubernetesClient client, String namespace, BooleanSupplier mayWrite) {
    this.client = client;
    this.namespace = namespace;
    this.mayWrite = mayWrite;
  }

  @Override
  public synchronized void write(SortedMap<String, String> data) {
    if (!mayWrite.getAsBoolean()) {
      throw new NotLeaderException();
    }
    var configMaps = client.configMaps().inNamespace(namespace);
    try {
      if (stored == null) {
        stored = createOrRead(data);
        if (data.equals(dataOf(stored))) {
          return;
        }
      }
      stored = configMaps.resource(new ConfigMapBuilder(stored).withData(data).build()).update();
    } catch (KubernetesClientException failure) {
      stored = null;
      if (failure.getCode() == HttpURLConnection.HTTP_CONFLICT
          || failure.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        throw new WriteConflictException(
            "ConfigMap "
                + namespace
                + "/"
                + ZoneDemand.CONFIG_MAP_NAME
                + " changed under the write",
            failure);
      }
      throw failure;
    }
  }

  private ConfigMap createOrRead(SortedMap<String, String> data) {
    var configMaps = client.configMaps().inNamespace(namespace);
    try {
      return configMaps
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName(ZoneDemand.CONFIG_MAP_NAME)
                  .withNamespace(namespace)
                  .withLabels(LABELS)
                  .endMetadata()
                  .withData(data)
                  .build())
          .create();
    } catch (KubernetesClientException failure) {
      if (failure.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw failure;
      }
    }
    var existing = configMaps.withName(ZoneDemand.CONFIG_MAP_NAME).get();
    if (existing == null) {
      throw new KubernetesClientException(
          "ConfigMap " + namespace + "/" + ZoneDemand.CONFIG_MAP_NAME + " vanished",
          HttpURLConnection.HTTP_NOT_FOUND,
          null);
    }
    return existing;
  }

  private static Map<String, String> dataOf(ConfigMap configMap) {
    return configMap.getData() == null ? Map.of() : configMap.getData();
  }
}
