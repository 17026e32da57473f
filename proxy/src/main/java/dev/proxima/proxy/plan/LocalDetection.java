package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.PodInterface;
import java.util.List;

/**
 * How one family's rules tell pod traffic from other traffic at one sync: the configured {@code
 * --detect-local-mode} when its input is there, otherwise the best mode the settings allow.
 *
 * <p>NodeCIDR on a Node without {@code spec.podCIDRs}, which many clusters never set, falls back
 * rather than leave the node without a Service proxy; docs/proxy.md gives the order.
 *
 * @param effective null when the rules detect no local traffic
 * @param missing what the configured mode lacks, in words, when {@code effective} differs from it;
 *     null when the configured mode is in use
 */
public record LocalDetection(
    DetectLocalMode configured,
    DetectLocalMode effective,
    List<String> localCidrs,
    PodInterface podInterface,
    String missing) {
  public LocalDetection {
    localCidrs = List.copyOf(localCidrs);
  }

  public boolean degraded() {
    return missing != null;
  }

  /** The effective mode's name, {@code None} when no local traffic is detected. */
  public String effectiveName() {
    return effective == null ? "None" : effective.apiName();
  }

  /** One line for logs, health bodies and {@code explain --live}. */
  public String describe() {
    String what;
    if (effective == null) {
      what = "None (no local-traffic detection)";
    } else if (podInterface != null) {
      what = effective.apiName() + " " + podInterface.name();
    } else {
      what =
          effective.apiName()
              + (localCidrs.isEmpty() ? " (no CIDR)" : " " + String.join(",", localCidrs));
    }
    return degraded() ? what + "; " + configured.apiName() + " is configured but " + missing : what;
  }

  /** {@code nodePodCidrs} as written: entries that are not CIDRs are skipped. */
  public static LocalDetection of(
      RuleSettings settings, IpFamily family, List<String> nodePodCidrs) {
    var configured = settings.detectLocalMode();
    return switch (configured) {
      case CLUSTER_CIDR ->
          new LocalDetection(configured, configured, settings.clusterCidrs(family), null, null);
      case BRIDGE_INTERFACE, INTERFACE_NAME_PREFIX ->
          new LocalDetection(configured, configured, List.of(), settings.podInterface(), null);
      case NODE_CIDR -> {
        var cidrs =
            nodePodCidrs.stream()
                .map(String::trim)
                .filter(cidr -> Cidr.familyOf(cidr) == family)
                .distinct()
                .toList();
        // A Node with pod CIDRs of the other family only has no pods of this one: nothing to
        // detect, and nothing missing.
        boolean anyCidr =
            nodePodCidrs.stream().anyMatch(cidr -> Cidr.familyOf(cidr.trim()) != null);
        yield anyCidr
            ? new LocalDetection(configured, configured, cidrs, null, null)
            : fallback(settings, family);
      }
    };
  }

  private static LocalDetection fallback(RuleSettings settings, IpFamily family) {
    var configured = settings.detectLocalMode();
    var missing = "the Node has no spec.podCIDRs";
    var clusterCidrs = settings.clusterCidrs(family);
    if (!clusterCidrs.isEmpty()) {
      return new LocalDetection(
          configured, DetectLocalMode.CLUSTER_CIDR, clusterCidrs, null, missing);
    }
    var prefix = interfaceOrNull(settings.podInterfaceNamePrefix(), true);
    if (prefix != null) {
      return new LocalDetection(
          configured, DetectLocalMode.INTERFACE_NAME_PREFIX, List.of(), prefix, missing);
    }
    var bridge = interfaceOrNull(settings.podBridgeInterface(), false);
    if (bridge != null) {
      return new LocalDetection(
          configured, DetectLocalMode.BRIDGE_INTERFACE, List.of(), bridge, missing);
    }
    return new LocalDetection(
        configured,
        null,
        List.of(),
        null,
        missing
            + ", and neither --cluster-cidr of this family nor --pod-interface-name-prefix nor"
            + " --pod-bridge-interface is set");
  }

  /** A configured interface, or null when it is unset or not a valid name (never fatal here). */
  private static PodInterface interfaceOrNull(String name, boolean prefix) {
    if (name.isEmpty()) {
      return null;
    }
    try {
      return prefix ? PodInterface.namePrefix(name) : PodInterface.bridge(name);
    } catch (IllegalArgumentException invalid) {
      return null;
    }
  }
}
