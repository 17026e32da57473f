package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.route.PortRoute;
import dev.proxima.proxy.route.RouteDecision;
import dev.proxima.proxy.route.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole path of one planned Service port on this node, for {@code explain}: the addresses that
 * lead to it and, per traffic source, the endpoints that source reaches or why its traffic is
 * dropped or rejected. The verdicts come from {@link RouteDecision}, the decision both rule
 * renderers spell, so what {@code explain} says is what the kernel does. Pure.
 */
public final class TrafficPaths {
  private TrafficPaths() {}

  public enum Source {
    CLUSTER_IP("pods and this node", "internalTrafficPolicy", "clusterIP"),
    EXTERNAL("external clients", "externalTrafficPolicy", "external"),
    /**
     * Pods and the node itself, to a NodePort, load-balancer IP or externalIP of a Service with
     * externalTrafficPolicy Local: they short-circuit to the Cluster policy's list.
     */
    EXTERNAL_FROM_INSIDE("pods and this node", "externalTrafficPolicy", "externalFromInside");

    private final String who;
    private final String policyField;
    private final String jsonName;

    Source(String who, String policyField, String jsonName) {
      this.who = who;
      this.policyField = policyField;
      this.jsonName = jsonName;
    }

    public String who() {
      return who;
    }

    public String policyField() {
      return policyField;
    }

    public String jsonName() {
      return jsonName;
    }
  }

  /**
   * What happens to one source's traffic.
   *
   * @param to the addresses this traffic arrives at ({@code ip:port}, or {@code nodePort N})
   * @param endpoints empty when dropped or rejected
   * @param why one sentence: which list and why, or why the traffic goes nowhere
   */
  public record Path(
      Source source,
      List<String> to,
      String policy,
      Verdict verdict,
      List<Endpoint> endpoints,
      String why) {
    public Path {
      to = List.copyOf(to);
      endpoints = List.copyOf(endpoints);
    }

    /** The policy in words, e.g. {@code externalTrafficPolicy Local}. */
    public String policyPhrase() {
      return source == Source.EXTERNAL_FROM_INSIDE
          ? "externalTrafficPolicy Local does not apply to traffic from inside the cluster"
          : source.policyField() + " " + policy;
    }

    public boolean lost() {
      return !verdict.dispatches();
    }
  }

  /**
   * The addresses of one Service port as this node programs them.
   *
   * @param clusterIp null when the family has none
   * @param sourceRanges the sources the load-balancer IPs admit when {@code firewall}; empty then
   *     means none (ranges nobody could read fail closed)
   */
  public record Addresses(
      String clusterIp,
      int port,
      int nodePort,
      List<String> loadBalancerIps,
      List<String> externalIps,
      int healthCheckNodePort,
      boolean firewall,
      List<String> sourceRanges) {
    public Addresses {
      loadBalancerIps = List.copyOf(loadBalancerIps);
      externalIps = List.copyOf(externalIps);
      sourceRanges = List.copyOf(sourceRanges);
    }

    /** Each address as one phrase, ClusterIP first, e.g. {@code nodePort 30080}. */
    public List<String> phrases() {
      var out = new ArrayList<String>();
      if (clusterIp != null) {
        out.add("clusterIP " + hostPort(clusterIp, port));
      }
      out.addAll(externalPhrases());
      if (healthCheckNodePort != 0) {
        out.add("healthCheckNodePort " + healthCheckNodePort);
      }
      return out;
    }

    List<String> externalPhrases() {
      var out = new ArrayList<String>();
      if (nodePort != 0) {
        out.add("nodePort " + nodePort);
      }
      loadBalancerIps.forEach(ip -> out.add("loadBalancer " + hostPort(ip, port)));
      externalIps.forEach(ip -> out.add("externalIP " + hostPort(ip, port)));
      return out;
    }
  }

  public record PortPaths(Addresses addresses, List<Path> paths) {
    public PortPaths {
      paths = List.copyOf(paths);
    }
  }

  /** The addresses and paths of {@code planned} in {@code family}; none when it cannot route. */
  public static PortPaths of(IpFamily family, NodePlanner.PlannedPort planned) {
    var port = planned.port();
    var selection = planned.selection();
    PortRoute route =
        new RouteDecision(family, new ArrayList<>())
            .decide(
                port,
                orEmpty(selection.clusterEndpoints()),
                orEmpty(selection.localEndpoints()),
                selection.hasAnyEndpoints(),
                ZoneSpill.NONE);
    if (route == null) {
      return new PortPaths(
          new Addresses(null, port.port(), 0, List.of(), List.of(), 0, false, List.of()),
          List.of());
    }
    var addresses =
        new Addresses(
            route.clusterIp(),
            port.port(),
            route.nodePort(),
            route.loadBalancerIps(),
            route.externalIps(),
            port.healthCheckNodePort(),
            route.firewall(),
            route.firewall()
                ? route.allowedSources().stream().map(Object::toString).toList()
                : List.of());
    var paths = new ArrayList<Path>();
    if (addresses.clusterIp() != null) {
      paths.add(
          path(
              Source.CLUSTER_IP,
              List.of("clusterIP " + hostPort(addresses.clusterIp(), port.port())),
              port.internalTrafficLocal(),
              route.internal(),
              route));
    }
    if (route.externallyAccessible()) {
      var external = addresses.externalPhrases();
      paths.add(path(Source.EXTERNAL, external, route.externalLocal(), route.external(), route));
      if (route.externalLocal()) {
        // Pods and the node reach an eTP=Local Service's external addresses through the Cluster
        // policy's list, as kube-proxy does, so they are not dropped on a node without endpoints.
        var inside =
            route.anyEndpoints()
                ? route.cluster().isEmpty() ? Verdict.DROP : Verdict.CLUSTER_ENDPOINTS
                : Verdict.REJECT;
        paths.add(path(Source.EXTERNAL_FROM_INSIDE, external, false, inside, route));
      }
    }
    return new PortPaths(addresses, paths);
  }

  private static Path path(
      Source source, List<String> to, boolean local, Verdict verdict, PortRoute route) {
    var policy = local ? "Local" : "Cluster";
    return new Path(
        source, to, policy, verdict, route.endpoints(verdict), why(source, policy, verdict, route));
  }

  private static String why(Source source, String policy, Verdict verdict, PortRoute route) {
    return switch (verdict) {
      case CLUSTER_ENDPOINTS -> "the Cluster policy's list";
      case LOCAL_ENDPOINTS -> "the endpoints on this node";
      case REJECT ->
          "REJECTED: the Service has no ready or serving-terminating endpoint anywhere; clients"
              + " get connection refused";
      case DROP ->
          policy.equals("Local")
              ? "DROPPED: this node has no ready or serving-terminating endpoint of the Service"
                  + " (its endpoints are on other nodes)"
                  + (source == Source.EXTERNAL && route.port().healthCheckNodePort() != 0
                      ? "; the load balancer's health check on port "
                          + route.port().healthCheckNodePort()
                          + " reports this node unhealthy, so it should send none"
                      : "")
              : "DROPPED: no endpoint the Cluster policy may use";
    };
  }

  private static List<Endpoint> orEmpty(List<Endpoint> endpoints) {
    return endpoints == null ? List.of() : endpoints;
  }

  static String hostPort(String ip, int port) {
    return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port;
  }
}
