package dev.proxima.proxy.runtime;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Optional;

/**
 * Whether load balancers should still send traffic to this node, as kube-proxy's /healthz decides
 * (KEP-3836): not when its Node is missing, being deleted, or tainted by the cluster autoscaler for
 * scale-down, so load balancers drain the node before it goes. /livez ignores this.
 */
final class NodeEligibility {
  /** The taint the cluster autoscaler puts on a node it is about to delete. */
  static final String TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler";

  private NodeEligibility() {}

  /** Why {@code node} is not eligible, for the /healthz body; empty when it is. */
  static Optional<String> whyNot(Node node, String nodeName) {
    if (node == null) {
      return Optional.of("node " + nodeName + " not found");
    }
    if (node.getMetadata() != null && node.getMetadata().getDeletionTimestamp() != null) {
      return Optional.of("node is being deleted");
    }
    if (node.getSpec() != null
        && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream()
            .anyMatch(taint -> TO_BE_DELETED_TAINT.equals(taint.getKey()))) {
      return Optional.of("node has the " + TO_BE_DELETED_TAINT + " taint");
    }
    return Optional.empty();
  }
}
