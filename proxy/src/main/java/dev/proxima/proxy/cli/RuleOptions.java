package dev.proxima.proxy.cli;

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
          "CIDRs selecting the node addresses that accept NodePorts; default: every local address"
              + " except loopback. Loopback addresses never accept NodePorts.")
  List<String> nodePortCidrs = new ArrayList<>();

  RuleSettings toSettings() {
    return new RuleSettings(
        clean(clusterCidrs), masqueradeAll, masqueradeBit, clean(nodePortCidrs));
  }

  private static List<String> clean(List<String> values) {
    return values == null
        ? List.of()
        : values.stream().map(String::trim).filter(v -> !v.isEmpty()).toList();
  }
}
