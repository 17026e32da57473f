package dev.proxima.proxy.cli;

import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.plan.DetectLocalMode;
import dev.proxima.proxy.plan.RuleSettings;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options that shape the rules whatever the Services, shared by run and render. */
final class RuleOptions {
  @Option(
      names = "--cluster-cidr",
      split = ",",
      defaultValue = "${env:PROXIMA_CLUSTER_CIDR}",
      description =
          "Pod CIDRs (comma-separated, both families); traffic from outside them to a ClusterIP is masqueraded.")
  List<String> clusterCidrs = new ArrayList<>();

  @Option(
      names = "--masquerade-all",
      defaultValue = "${env:PROXIMA_MASQUERADE_ALL:-false}",
      description = "Masquerade all traffic to ClusterIPs, whatever its source.")
  boolean masqueradeAll;

  @Option(
      names = "--masquerade-bit",
      defaultValue = "${env:PROXIMA_MASQUERADE_BIT:-14}",
      description = "The packet mark bit that requests masquerading (default: ${DEFAULT-VALUE}).")
  int masqueradeBit;

  @Option(
      names = "--nodeport-addresses",
      split = ",",
      defaultValue = "${env:PROXIMA_NODEPORT_ADDRESSES}",
      description =
          "CIDRs, or primary (the Node's first InternalIP, else ExternalIP, per family), selecting"
              + " the host's interface addresses that accept NodePorts; a family given none accepts"
              + " them on every local address except loopback. Unset: primary in nftables mode,"
              + " every local address in iptables mode, as upstream; 0.0.0.0/0,::/0 widens"
              + " nftables mode to every address. When nothing matches, NodePorts are accepted on"
              + " no address. Loopback never accepts NodePorts.")
  List<String> nodePortCidrs = new ArrayList<>();

  @Option(
      names = "--external-ip-cidrs",
      split = ",",
      defaultValue = "${env:PROXIMA_EXTERNAL_IP_CIDRS}",
      description =
          "CIDRs: a Service's externalIPs are programmed only inside them, the node-level"
              + " counterpart of the DenyServiceExternalIPs admission plugin. Unset: any"
              + " externalIP except this node's addresses, pod and Service ranges and other"
              + " Services' ClusterIPs, which are never programmed.")
  List<String> externalIpCidrs = new ArrayList<>();

  @Option(
      names = "--detect-local-mode",
      defaultValue = "${env:PROXIMA_DETECT_LOCAL_MODE:-ClusterCIDR}",
      description =
          "How traffic from pods is told from other traffic (not masqueraded to ClusterIPs):"
              + " ClusterCIDR (source in --cluster-cidr), NodeCIDR (source in this Node's"
              + " spec.podCIDRs; rules wait for them), BridgeInterface (arrives on"
              + " --pod-bridge-interface), InterfaceNamePrefix (arrives on an interface named"
              + " --pod-interface-name-prefix*). Default: ${DEFAULT-VALUE}.")
  String detectLocalMode;

  @Option(
      names = "--pod-bridge-interface",
      defaultValue = "${env:PROXIMA_POD_BRIDGE_INTERFACE}",
      description = "The bridge pods are attached to, for --detect-local-mode=BridgeInterface.")
  String podBridgeInterface;

  @Option(
      names = "--pod-interface-name-prefix",
      defaultValue = "${env:PROXIMA_POD_INTERFACE_NAME_PREFIX}",
      description =
          "The prefix of pod interfaces' names, for --detect-local-mode=InterfaceNamePrefix.")
  String podInterfaceNamePrefix;

  @Option(
      names = "--observe-locality",
      defaultValue = "${env:PROXIMA_OBSERVE_LOCALITY:-annotated}",
      description =
          "nftables mode: which Service ports the kernel counts new connections of by endpoint"
              + " locality (proxima_proxy_service_connections_total): annotated (Services"
              + " annotated proxima.dev/observe-locality: \"true\"), all, or off, which leaves"
              + " every connection counter out of the rules, the node's own"
              + " (proxima_proxy_connections_total) included. Default: ${DEFAULT-VALUE}.")
  String observeLocality;

  @Option(
      names = "--observe-locality-max-series",
      defaultValue = "${env:PROXIMA_OBSERVE_LOCALITY_MAX_SERIES:-4000}",
      description =
          "At most this many per-Service locality series per family, four per Service port;"
              + " the ports beyond it (in namespace, name, port order) are not counted, and"
              + " proxima_proxy_observed_service_ports_dropped says how many. Default:"
              + " ${DEFAULT-VALUE}.")
  int observeMaxSeries = RuleSettings.DEFAULT_OBSERVE_MAX_SERIES;

  RuleSettings toSettings() {
    // Empty, as a manifest's variable may be, is the default.
    var mode =
        detectLocalMode == null || detectLocalMode.isBlank()
            ? DetectLocalMode.CLUSTER_CIDR.apiName()
            : detectLocalMode.trim();
    return new RuleSettings(clean(clusterCidrs), masqueradeAll, masqueradeBit, clean(nodePortCidrs))
        .withDetectLocal(
            DetectLocalMode.of(mode)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--detect-local-mode: \""
                                + mode
                                + "\" is not one of "
                                + DetectLocalMode.names())),
            podBridgeInterface,
            podInterfaceNamePrefix)
        .withObserveLocality(
            observeLocality == null || observeLocality.isBlank()
                ? ObserveLocality.ANNOTATED
                : ObserveLocality.parse(observeLocality),
            observeMaxSeries)
        .withExternalIpCidrs(clean(externalIpCidrs));
  }

  private static List<String> clean(List<String> values) {
    return values == null
        ? List.of()
        : values.stream().map(String::trim).filter(v -> !v.isEmpty()).toList();
  }
}
