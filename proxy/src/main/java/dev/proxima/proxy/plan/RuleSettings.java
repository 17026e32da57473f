package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.IpLiteral;
import java.util.ArrayList;
import java.util.List;

/**
 * The node-wide settings that shape the rules, whatever the Services: where pods live (for
 * masquerading), the masquerade mark, and which node addresses accept NodePorts.
 *
 * @param clusterCidrs pod CIDRs of both families
 * @param nodePortCidrs CIDRs selecting the node addresses that accept NodePorts; empty means every
 *     local address
 */
public record RuleSettings(
    List<String> clusterCidrs,
    boolean masqueradeAll,
    int masqueradeBit,
    List<String> nodePortCidrs) {
  public RuleSettings {
    clusterCidrs = List.copyOf(clusterCidrs);
    nodePortCidrs = List.copyOf(nodePortCidrs);
    for (var cidr : clusterCidrs) {
      if (IpLiteral.familyOfCidr(cidr) == null) {
        throw new IllegalArgumentException("--cluster-cidr: \"" + cidr + "\" is not a CIDR");
      }
    }
    for (var cidr : nodePortCidrs) {
      if (IpLiteral.familyOfCidr(cidr) == null) {
        throw new IllegalArgumentException("--nodeport-addresses: \"" + cidr + "\" is not a CIDR");
      }
    }
  }

  public static RuleSettings defaults() {
    return new RuleSettings(List.of(), false, 14, List.of());
  }

  public List<String> clusterCidrs(IpFamily family) {
    return clusterCidrs.stream().filter(cidr -> IpLiteral.familyOfCidr(cidr) == family).toList();
  }

  /**
   * The node's addresses of this family that accept NodePorts. Empty when no CIDRs are set: the
   * rules then accept NodePorts on every local address without listing them.
   */
  public List<String> nodePortAddresses(IpFamily family, List<String> nodeAddresses) {
    var result = new ArrayList<String>();
    if (nodePortCidrs.isEmpty()) {
      return result;
    }
    for (var address : nodeAddresses) {
      if (IpFamily.of(address) == family
          && nodePortCidrs.stream().anyMatch(cidr -> IpLiteral.contains(cidr, address))
          && !result.contains(address)) {
        result.add(address);
      }
    }
    return result;
  }
}
