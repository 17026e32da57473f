package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.PodInterface;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The node-wide settings that shape the rules, whatever the Services: where pods live (for
 * masquerading), the masquerade mark, and which node addresses accept NodePorts.
 *
 * @param nodePortCidrs CIDRs selecting the node addresses that accept NodePorts; empty means every
 *     local address (the proxy's nftables mode never runs with it empty: see {@link
 *     #withDefaultNodePortAddressesOf})
 * @param observeLocality which Service ports get per-Service locality counters; {@code OFF} turns
 *     every kernel connection counter off, the node's own included
 * @param observeMaxSeries at most this many per-Service locality series per family (four per
 *     Service port)
 * @param externalIpCidrs {@code --external-ip-cidrs}: when not empty, externalIPs are programmed
 *     only inside these ranges (see {@link AddressPolicy})
 */
public record RuleSettings(
    List<String> clusterCidrs,
    boolean masqueradeAll,
    int masqueradeBit,
    List<String> nodePortCidrs,
    DetectLocalMode detectLocalMode,
    String podBridgeInterface,
    String podInterfaceNamePrefix,
    ObserveLocality observeLocality,
    int observeMaxSeries,
    List<String> externalIpCidrs) {
  public static final String PRIMARY = "primary";

  /** The default of {@code --observe-locality-max-series}: a thousand Service ports. */
  public static final int DEFAULT_OBSERVE_MAX_SERIES = 4000;

  public RuleSettings {
    clusterCidrs = List.copyOf(clusterCidrs);
    externalIpCidrs = List.copyOf(externalIpCidrs);
    requireCidrs("--external-ip-cidrs", externalIpCidrs);
    Objects.requireNonNull(observeLocality, "observeLocality");
    if (observeMaxSeries < 0) {
      throw new IllegalArgumentException(
          "--observe-locality-max-series must be 0 or more, got " + observeMaxSeries);
    }
    nodePortCidrs = List.copyOf(nodePortCidrs);
    Objects.requireNonNull(detectLocalMode, "detectLocalMode");
    podBridgeInterface = podBridgeInterface == null ? "" : podBridgeInterface.trim();
    podInterfaceNamePrefix = podInterfaceNamePrefix == null ? "" : podInterfaceNamePrefix.trim();
    // As kube-proxy's validation: an interface mode without its interface is a startup error.
    if (detectLocalMode == DetectLocalMode.BRIDGE_INTERFACE && podBridgeInterface.isEmpty()) {
      throw new IllegalArgumentException(
          "--detect-local-mode=BridgeInterface needs --pod-bridge-interface");
    }
    if (detectLocalMode == DetectLocalMode.INTERFACE_NAME_PREFIX
        && podInterfaceNamePrefix.isEmpty()) {
      throw new IllegalArgumentException(
          "--detect-local-mode=InterfaceNamePrefix needs --pod-interface-name-prefix");
    }
    podInterface(detectLocalMode, podBridgeInterface, podInterfaceNamePrefix); // validates names
    requireCidrs("--cluster-cidr", clusterCidrs);
    for (var cidr : nodePortCidrs) {
      if (!cidr.equals(PRIMARY) && Cidr.familyOf(cidr) == null) {
        throw new IllegalArgumentException(
            "--nodeport-addresses: \"" + cidr + "\" is not a CIDR or \"" + PRIMARY + "\"");
      }
    }
  }

  private static void requireCidrs(String flag, List<String> cidrs) {
    for (var cidr : cidrs) {
      if (Cidr.familyOf(cidr) == null) {
        throw new IllegalArgumentException(flag + ": \"" + cidr + "\" is not a CIDR");
      }
    }
  }

  /**
   * Local traffic detected by {@code --cluster-cidr} (kube-proxy's ClusterCIDR mode); the ports of
   * annotated Services counted per locality, up to the default series cap.
   */
  public RuleSettings(
      List<String> clusterCidrs,
      boolean masqueradeAll,
      int masqueradeBit,
      List<String> nodePortCidrs) {
    this(
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortCidrs,
        DetectLocalMode.CLUSTER_CIDR,
        "",
        "",
        ObserveLocality.ANNOTATED,
        DEFAULT_OBSERVE_MAX_SERIES,
        List.of());
  }

  /**
   * {@code --nodeport-addresses} that selects every address of both families but loopback: how an
   * operator widens the nftables mode's default, and what the config file's {@code all} means.
   */
  public static final List<String> EVERY_ADDRESS = List.of("0.0.0.0/0", "::/0");

  /**
   * These settings with the mode's default for an unset {@code --nodeport-addresses}, as upstream
   * kube-proxy: the node's primary IPs in nftables mode, so the pod gateway, secondary and
   * management addresses do not accept NodePorts unless asked for ({@link #EVERY_ADDRESS} widens
   * it); every local address in iptables mode.
   */
  public RuleSettings withDefaultNodePortAddressesOf(ProxyMode mode) {
    if (!nodePortCidrs.isEmpty() || mode != ProxyMode.nftables) {
      return this;
    }
    return new RuleSettings(
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        List.of(PRIMARY),
        detectLocalMode,
        podBridgeInterface,
        podInterfaceNamePrefix,
        observeLocality,
        observeMaxSeries,
        externalIpCidrs);
  }

  public static RuleSettings defaults() {
    return new RuleSettings(List.of(), false, 14, List.of());
  }

  public RuleSettings withDetectLocal(DetectLocalMode mode, String bridge, String prefix) {
    return with(mode, bridge, prefix, observeLocality, observeMaxSeries);
  }

  public RuleSettings withObserveLocality(ObserveLocality mode, int maxSeries) {
    return with(detectLocalMode, podBridgeInterface, podInterfaceNamePrefix, mode, maxSeries);
  }

  private RuleSettings with(
      DetectLocalMode mode, String bridge, String prefix, ObserveLocality observe, int maxSeries) {
    return new RuleSettings(
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortCidrs,
        mode,
        bridge,
        prefix,
        observe,
        maxSeries,
        externalIpCidrs);
  }

  public RuleSettings withExternalIpCidrs(List<String> cidrs) {
    return new RuleSettings(
        clusterCidrs,
        masqueradeAll,
        masqueradeBit,
        nodePortCidrs,
        detectLocalMode,
        podBridgeInterface,
        podInterfaceNamePrefix,
        observeLocality,
        observeMaxSeries,
        cidrs);
  }

  /**
   * The settings both translators read for one family, with the node's NodePort addresses already
   * selected (see {@link #nodePortAddresses}) and the Node's pod CIDRs for NodeCIDR detection.
   */
  public FamilySettings forFamily(
      IpFamily family, List<String> nodePortAddresses, List<String> nodePodCidrs) {
    var detection = LocalDetection.of(this, family, nodePodCidrs);
    return FamilySettings.of(family, detection.localCidrs())
        .withMasqueradeAll(masqueradeAll)
        .withMasqueradeBit(masqueradeBit)
        .withNodePortAddresses(nodePortAddresses)
        .withNodePortsListed(restrictsNodePorts(family))
        .withPodInterface(detection.podInterface())
        .withCountsLocality(observeLocality.counts());
  }

  public PodInterface podInterface() {
    return podInterface(detectLocalMode, podBridgeInterface, podInterfaceNamePrefix);
  }

  private static PodInterface podInterface(DetectLocalMode mode, String bridge, String prefix) {
    return switch (mode) {
      case BRIDGE_INTERFACE -> PodInterface.bridge(bridge);
      case INTERFACE_NAME_PREFIX -> PodInterface.namePrefix(prefix);
      case CLUSTER_CIDR, NODE_CIDR -> null;
    };
  }

  public List<String> clusterCidrs(IpFamily family) {
    return clusterCidrs.stream().filter(cidr -> Cidr.familyOf(cidr) == family).toList();
  }

  /**
   * True when {@code --nodeport-addresses} restricts this family's NodePorts to the addresses it
   * selects: it names a CIDR of this family, or {@code primary}. Otherwise, as in kube-proxy, the
   * family accepts NodePorts on every local address.
   */
  public boolean restrictsNodePorts(IpFamily family) {
    return nodePortCidrs.stream()
        .anyMatch(cidr -> cidr.equals(PRIMARY) || Cidr.familyOf(cidr) == family);
  }

  /**
   * The addresses of this family that accept NodePorts: the candidates (the host's interface
   * addresses; offline, the Node's status.addresses) inside a CIDR of {@code --nodeport-addresses}
   * or equal to one of the node's primary IPs when it names {@code primary}; never loopback, where
   * NodePorts are not supported. Empty when the family is not restricted (every local address) or
   * when nothing matches (no address at all: see {@link #restrictsNodePorts}).
   */
  public List<String> nodePortAddresses(
      IpFamily family, List<String> candidates, List<String> primaryIps) {
    var result = new ArrayList<String>();
    if (!restrictsNodePorts(family)) {
      return result;
    }
    var primary = nodePortCidrs.contains(PRIMARY);
    for (var address : candidates) {
      if (IpFamily.of(address) == family
          && !Cidr.contains(family.loopback(), address)
          && (nodePortCidrs.stream()
                  .anyMatch(cidr -> !cidr.equals(PRIMARY) && Cidr.contains(cidr, address))
              || (primary && primaryIps.stream().anyMatch(ip -> sameAddress(ip, address))))
          && !result.contains(address)) {
        result.add(address);
      }
    }
    return result;
  }

  private static boolean sameAddress(String a, String b) {
    var left = IpAddress.literalBytes(a);
    return left != null && java.util.Arrays.equals(left, IpAddress.literalBytes(b));
  }
}
