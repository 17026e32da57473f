package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.model.IpFamily;

/** How the iptables tools spell an IP family: {@code iptables} or {@code ip6tables}. */
public final class IptablesSyntax {
  private IptablesSyntax() {}

  public static String restoreCommand(IpFamily family) {
    return command(family) + "-restore";
  }

  public static String command(IpFamily family) {
    return family == IpFamily.IPV6 ? "ip6tables" : "iptables";
  }

  /** The REJECT type for "no endpoints": {@code icmp-port-unreachable} or its ICMPv6 twin. */
  static String rejectWith(IpFamily family) {
    return family == IpFamily.IPV6 ? "icmp6-port-unreachable" : "icmp-port-unreachable";
  }
}
