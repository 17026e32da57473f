package dev.proxima.proxy.plan;

import java.util.Arrays;
import java.util.Optional;

/**
 * How the rules tell traffic from this node's pods from other traffic, kube-proxy's {@code
 * --detect-local-mode}: pod traffic to a ClusterIP is not masqueraded, other traffic is, and pod
 * traffic to an eTP=Local external address may use any endpoint.
 */
public enum DetectLocalMode {
  /** Source inside {@code --cluster-cidr}. */
  CLUSTER_CIDR("ClusterCIDR"),
  /** Source inside this node's {@code spec.podCIDRs}, followed as the Node changes. */
  NODE_CIDR("NodeCIDR"),
  /** Arriving on the bridge {@code --pod-bridge-interface}. */
  BRIDGE_INTERFACE("BridgeInterface"),
  /** Arriving on an interface whose name starts with {@code --pod-interface-name-prefix}. */
  INTERFACE_NAME_PREFIX("InterfaceNamePrefix");

  private final String apiName;

  DetectLocalMode(String apiName) {
    this.apiName = apiName;
  }

  public String apiName() {
    return apiName;
  }

  /** The mode of this name, case-sensitive as in kube-proxy. */
  public static Optional<DetectLocalMode> of(String apiName) {
    return Arrays.stream(values()).filter(m -> m.apiName.equals(apiName)).findFirst();
  }

  /** For error messages and help: {@code ClusterCIDR, NodeCIDR, ...}. */
  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(DetectLocalMode::apiName).toList());
  }
}
