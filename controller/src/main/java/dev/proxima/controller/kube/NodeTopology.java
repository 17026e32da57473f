package dev.proxima.controller.kube;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Map;

/**
 * The parts of a Node that zone allocation reads. Node status changes every few seconds
 * (heartbeats, images, conditions); only a change in these is worth recomputing zone ratios for.
 */
record NodeTopology(String zone, boolean ready, String allocatableCpu, boolean controlPlane) {
  static NodeTopology of(Node node) {
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    var status = node.getStatus();
    boolean ready =
        status != null
            && status.getConditions() != null
            && status.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    var cpu =
        status == null
                || status.getAllocatable() == null
                || status.getAllocatable().get("cpu") == null
            ? null
            : status.getAllocatable().get("cpu").toString();
    return new NodeTopology(
        labels.get(Labels.ZONE),
        ready,
        cpu,
        labels.containsKey(Labels.CONTROL_PLANE_ROLE)
            || labels.containsKey(Labels.LEGACY_MASTER_ROLE));
  }
}
