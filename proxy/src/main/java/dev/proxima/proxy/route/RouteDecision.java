package dev.proxima.proxy.route;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.model.SourceRanges;
import dev.proxima.proxy.model.ZoneSpill;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides, once for both modes, how one Service port routes: which entry points it has, what each
 * does (dispatch, drop, reject), who may pass its firewall, and whether external traffic keeps its
 * source. Pure; values it cannot use are left out with a warning that names the port, so one bad
 * value never fails the rules of another Service.
 *
 * <p>The catalog already hands over canonical values of the family; this is the renderers' last
 * line of defence for callers that build {@link ServicePort}s themselves (tests, benchmarks).
 */
public final class RouteDecision {
  private final IpFamily family;
  private final List<String> warnings;

  /**
   * @param warnings where the values left out are named; the translators pass their own list, so
   *     the warnings stay in the order the ports were met
   */
  public RouteDecision(IpFamily family, List<String> warnings) {
    this.family = family;
    this.warnings = warnings;
  }

  /**
   * The route of one port, or null when the port itself is out of range (the whole port is then
   * skipped, with a warning).
   *
   * @param spill the Cluster list's zone spill-over
   */
  public PortRoute decide(
      ServicePort port,
      List<Endpoint> clusterEndpoints,
      List<Endpoint> localEndpoints,
      boolean anyEndpoints,
      ZoneSpill spill) {
    ServicePortName name = port.name();
    if (!validPort(port.port())) {
      warnings.add(name + ": port " + port.port() + " is out of range; service port skipped");
      return null;
    }
    String clusterIp = address(port.clusterIp());
    if (clusterIp == null) {
      warnings.add(name + ": clusterIP " + port.clusterIp() + " " + notOfFamily() + "; skipped");
    }
    List<String> externalIps = addresses(name, "externalIP", port.externalIps());
    List<String> loadBalancerIps = addresses(name, "load-balancer IP", port.loadBalancerIps());
    int nodePort = port.nodePort();
    if (nodePort != 0 && !validPort(nodePort)) {
      warnings.add(name + ": nodePort " + nodePort + " is out of range; skipped");
      nodePort = 0;
    }
    List<Endpoint> cluster = anyEndpoints ? endpoints(name, clusterEndpoints) : List.of();
    List<Endpoint> local = anyEndpoints ? endpoints(name, localEndpoints) : List.of();
    boolean reachableFromOutside =
        nodePort != 0 || !externalIps.isEmpty() || !loadBalancerIps.isEmpty();
    boolean externalLocal = port.externalTrafficLocal() && reachableFromOutside;
    return new PortRoute(
        port,
        clusterIp,
        externalIps,
        loadBalancerIps,
        nodePort,
        !loadBalancerIps.isEmpty() && port.restrictSources(),
        sources(name, port.loadBalancerSourceRanges()),
        cluster,
        local,
        anyEndpoints,
        verdict(anyEndpoints, port.internalTrafficLocal(), cluster, local),
        verdict(anyEndpoints, externalLocal, cluster, local),
        externalLocal,
        port.stickyTimeout() == null ? 0 : seconds(port.stickyTimeout()),
        spilled(name, spill, cluster));
  }

  /**
   * No endpoints at all rejects, so clients fail fast; endpoints that this policy may not use drop;
   * otherwise the policy's list.
   */
  static Verdict verdict(
      boolean anyEndpoints, boolean localPolicy, List<Endpoint> cluster, List<Endpoint> local) {
    if (!anyEndpoints) {
      return Verdict.REJECT;
    }
    if (localPolicy) {
      return local.isEmpty() ? Verdict.DROP : Verdict.LOCAL_ENDPOINTS;
    }
    return cluster.isEmpty() ? Verdict.DROP : Verdict.CLUSTER_ENDPOINTS;
  }

  /** The spill with its spread list validated; none without a Cluster list to spill from. */
  private ZoneSpill spilled(ServicePortName name, ZoneSpill spill, List<Endpoint> cluster) {
    if (!spill.spills() || cluster.isEmpty()) {
      return ZoneSpill.NONE;
    }
    var spread = endpoints(name, spill.spread());
    return spread.isEmpty() ? ZoneSpill.NONE : new ZoneSpill(spill.keepPerMille(), spread);
  }

  /** Whole seconds, rounded up, at least 1: both tools count affinity in seconds. */
  public static long seconds(Duration timeout) {
    long seconds = timeout.getSeconds() + (timeout.getNano() > 0 ? 1 : 0);
    return Math.max(1, Math.min(Integer.MAX_VALUE, seconds));
  }

  private String address(String raw) {
    IpAddress parsed = IpAddress.parse(raw);
    return parsed != null && parsed.family() == family ? parsed.toString() : null;
  }

  private List<String> addresses(ServicePortName name, String what, List<String> input) {
    Set<String> out = new LinkedHashSet<>();
    for (String raw : input) {
      String address = address(raw);
      if (address == null) {
        warnings.add(name + ": " + what + " " + raw + " " + notOfFamily() + "; skipped");
      } else {
        out.add(address);
      }
    }
    return List.copyOf(out);
  }

  /**
   * This family's source ranges, outermost only. A port whose ranges are all unusable gets an empty
   * list, and with it a firewall that lets nobody through: the Service asked for a restriction, so
   * it fails closed.
   */
  private List<Cidr> sources(ServicePortName name, List<String> ranges) {
    // Reduced once per Service by the catalog: taken as it is, not compared again per port.
    SourceRanges reduced = SourceRanges.of(ranges);
    reduced.unreadable().forEach(range -> warnUnusable(name, range));
    List<Cidr> usable = reduced.of(family);
    if (usable.size() != reduced.cidrs().size()) {
      reduced.cidrs().stream()
          .filter(cidr -> cidr.family() != family)
          .forEach(cidr -> warnUnusable(name, cidr.toString()));
    }
    return usable;
  }

  private void warnUnusable(ServicePortName name, String range) {
    warnings.add(
        "%s: loadBalancerSourceRange %s is not an %s CIDR; ignored (the other ranges still apply)"
            .formatted(name, range, family.apiName()));
  }

  /** The endpoints of the family with a valid port, each address once, in the given order. */
  private List<Endpoint> endpoints(ServicePortName name, List<Endpoint> input) {
    List<Endpoint> out = new ArrayList<>(input.size());
    Set<String> seen = new HashSet<>();
    for (Endpoint endpoint : input) {
      IpAddress ip = IpAddress.parse(endpoint.ip());
      if (ip == null || ip.family() != family) {
        warnings.add(name + ": endpoint " + endpoint.address() + " " + notOfFamily());
      } else if (!validPort(endpoint.port())) {
        warnings.add(name + ": endpoint " + endpoint.address() + " has an out-of-range port");
      } else {
        Endpoint canonical = canonical(endpoint, ip.toString());
        if (seen.add(canonical.address())) {
          out.add(canonical);
        }
      }
    }
    return out;
  }

  private static Endpoint canonical(Endpoint endpoint, String ip) {
    if (ip.equals(endpoint.ip())) {
      return endpoint;
    }
    return new Endpoint(
        ip,
        endpoint.port(),
        endpoint.ready(),
        endpoint.serving(),
        endpoint.terminating(),
        endpoint.nodeName(),
        endpoint.local(),
        endpoint.zoneHints(),
        endpoint.nodeHints(),
        endpoint.locality());
  }

  private String notOfFamily() {
    return "is not an " + family.apiName() + " address";
  }

  private static boolean validPort(int port) {
    return port >= 1 && port <= 65535;
  }
}
