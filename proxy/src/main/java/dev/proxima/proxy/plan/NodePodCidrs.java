package dev.proxima.proxy.plan;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;

/** A Node's pod CIDRs, the input of {@code --detect-local-mode=NodeCIDR}. */
public final class NodePodCidrs {
  private NodePodCidrs() {}

  /**
   * {@code spec.podCIDRs}, or the older single {@code spec.podCIDR} when the list is unset; empty
   * for a missing Node. Values are returned as written: {@link RuleSettings#localCidrs} skips those
   * that are not CIDRs.
   */
  public static List<String> of(Node node) {
    if (node == null || node.getSpec() == null) {
      return List.of();
    }
    var spec = node.getSpec();
    var result = new ArrayList<String>();
    if (spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()) {
      spec.getPodCIDRs().stream().filter(c -> c != null && !c.isBlank()).forEach(result::add);
    } else if (spec.getPodCIDR() != null && !spec.getPodCIDR().isBlank()) {
      result.add(spec.getPodCIDR());
    }
    return List.copyOf(result);
  }
}
