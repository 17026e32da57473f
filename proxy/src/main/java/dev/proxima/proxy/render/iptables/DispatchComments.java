package dev.proxima.proxy.render.iptables;

import java.util.List;

/**
 * A port's dispatch-rule comments: its name, then an ending fixed per chain, so a full sync reading
 * them back never takes a name that starts with another port's for it.
 */
final class DispatchComments {
  static final String CLUSTER_IP = " cluster IP";
  static final String EXTERNAL_IP = " external IP";
  static final String LOAD_BALANCER_IP = " loadbalancer IP";
  static final String NO_ENDPOINTS = " has no endpoints";
  static final String NO_LOCAL_ENDPOINTS = " has no local endpoints";
  static final String HEALTH_CHECK = " health check node port";

  /** Followed by the name of the port's firewall chain. */
  static final String NOT_ACCEPTED = " traffic not accepted by ";

  private DispatchComments() {}

  /** The sanitised port name in the comment, or null for none a port's rule there has. */
  static String name(String table, String chain, String comment) {
    if (comment == null) {
      return null;
    }
    if (table.equals("filter") && chain.equals(IptablesChains.FIREWALL)) {
      int at = comment.lastIndexOf(NOT_ACCEPTED);
      String target = at < 0 ? "" : comment.substring(at + NOT_ACCEPTED.length());
      return target.startsWith(IptablesChains.FW_PREFIX) && target.indexOf(' ') < 0
          ? comment.substring(0, at).strip()
          : null;
    }
    for (String ending : endings(table, chain)) {
      if (comment.endsWith(ending)) {
        return comment.substring(0, comment.length() - ending.length()).strip();
      }
    }
    return null;
  }

  /** The endings of a port's comments in a dispatch chain; none of one ends another. */
  private static List<String> endings(String table, String chain) {
    if (table.equals("nat")) {
      return switch (chain) {
        case IptablesChains.SERVICES -> List.of(CLUSTER_IP, EXTERNAL_IP, LOAD_BALANCER_IP);
        case IptablesChains.NODEPORTS -> List.of("");
        default -> List.of();
      };
    }
    return switch (chain) {
      case IptablesChains.SERVICES, IptablesChains.EXTERNAL_SERVICES ->
          List.of(NO_ENDPOINTS, NO_LOCAL_ENDPOINTS);
      case IptablesChains.NODEPORTS -> List.of(HEALTH_CHECK);
      default -> List.of();
    };
  }
}
