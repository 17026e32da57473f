package dev.proxima.controller.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;

/** Writes a Service's status conditions; the API server in the live controller. */
public interface ServiceStatusWriter {
  /**
   * Replaces the Service's status conditions with {@code conditions} (the complete list, other
   * writers' conditions included), provided the Service is still at the resourceVersion read.
   *
   * @throws SliceWriter.WriteConflictException when the Service changed since it was read
   * @throws SliceWriter.NotLeaderException when this replica may no longer write
   */
  void writeConditions(Service read, List<Condition> conditions);
}
