package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.render.iptables.IptablesChains.EXTERNAL_SERVICES;
import static dev.proxima.proxy.render.iptables.IptablesChains.FIREWALL;
import static dev.proxima.proxy.render.iptables.IptablesChains.MARK_MASQ;
import static dev.proxima.proxy.render.iptables.IptablesChains.MASQ_NON_POD;
import static dev.proxima.proxy.render.iptables.IptablesChains.NODEPORTS;
import static dev.proxima.proxy.render.iptables.IptablesChains.SERVICES;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.route.PortRoute;
import dev.proxima.proxy.route.RouteDecision;
import dev.proxima.proxy.route.Verdict;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Renders one Service port into its {@link ServiceChains}. Pure. */
final class ServiceChainsRenderer {
  private final FamilySettings config;
  private final RouteDecision decision;
  private final boolean large;
  private final String reject;
  private final List<IptablesRule> shared = new ArrayList<>();
  private final Map<String, List<IptablesRule>> own = new LinkedHashMap<>();
  private final List<String> warnings = new ArrayList<>();
  private final Map<String, String> sepNames = new java.util.HashMap<>();
  private int healthCheckNodePort;
  private IptablesRule healthCheck;

  private ServiceChainsRenderer(FamilySettings config, boolean large) {
    this.config = config;
    this.decision = new RouteDecision(config.family(), warnings);
    this.large = large;
    this.reject =
        "-j REJECT --reject-with "
            + (config.family() == IpFamily.IPV6 ? "icmp6" : "icmp")
            + "-port-unreachable";
  }

  /** {@code large}: per-endpoint rules carry no comment. */
  static ServiceChains render(FamilySettings config, ServicePortRules rules, boolean large) {
    var renderer = new ServiceChainsRenderer(config, large);
    rules.route(renderer.decision).ifPresent(renderer::translate);
    return new ServiceChains(
        renderer.shared,
        renderer.own,
        renderer.healthCheckNodePort,
        renderer.healthCheck,
        renderer.warnings);
  }

  /** Distinct endpoint addresses of a port, as counted for the large-cluster threshold. */
  static int endpointAddresses(ServicePortRules rules) {
    Set<String> addresses = new HashSet<>();
    rules.clusterOrEmpty().forEach(e -> addresses.add(e.address()));
    rules.localOrEmpty().forEach(e -> addresses.add(e.address()));
    rules.spill().spread().forEach(e -> addresses.add(e.address()));
    return addresses.size();
  }

  private static boolean isOwnChain(String chain) {
    return chain.startsWith(IptablesChains.SVC_PREFIX)
        || chain.startsWith(IptablesChains.SVL_PREFIX)
        || chain.startsWith(IptablesChains.EXT_PREFIX)
        || chain.startsWith(IptablesChains.FW_PREFIX)
        || chain.startsWith(IptablesChains.SEP_PREFIX)
        || chain.startsWith(IptablesChains.SPZ_PREFIX);
  }

  private void nat(String chain, String comment, String... parts) {
    add("nat", chain, comment, parts);
  }

  private void filter(String chain, String comment, String... parts) {
    add("filter", chain, comment, parts);
  }

  /** Declares {@code chain} when it is the port's own; empty {@code parts} are left out. */
  private void add(String table, String chain, String comment, String... parts) {
    String spec = Stream.of(parts).filter(p -> !p.isEmpty()).collect(Collectors.joining(" "));
    IptablesRule rule = new IptablesRule(table, chain, comment, spec);
    if (isOwnChain(chain)) {
      own.computeIfAbsent(chain, c -> new ArrayList<>()).add(rule);
    } else {
      shared.add(rule);
    }
  }

  /** {@code -j} to a chain of the port's own, declared where first used, as the buffer does. */
  private String jumpTo(String ownChain) {
    own.computeIfAbsent(ownChain, c -> new ArrayList<>());
    return "-j " + ownChain;
  }

  private void translate(PortRoute route) {
    ServicePort sp = route.port();
    ServicePortName name = sp.name();
    String proto = sp.protocol().lower();
    String protoMatch = "-m " + proto + " -p " + proto;
    String dport = "--dport " + sp.port();

    boolean hasAny = route.anyEndpoints();
    boolean externalLocal = route.externalLocal();
    boolean hasExternal = route.external().dispatches();
    // Without endpoints nothing is DNATed and the reject answers every source alike.
    boolean usesFirewallChain = hasAny && route.firewall();

    // One hash for the four per-Service names: hashing dominates rendering at scale.
    String hash = IptablesChains.serviceHash(name);
    String svc = IptablesChains.SVC_PREFIX + hash;
    String svl = IptablesChains.SVL_PREFIX + hash;
    String ext = IptablesChains.EXT_PREFIX + hash;
    String fw = IptablesChains.FW_PREFIX + hash;
    String internalChain = route.internal() == Verdict.LOCAL_ENDPOINTS ? svl : svc;

    if (route.clusterIp() != null) {
      String dest = protoMatch + " -d " + route.clusterIp() + " " + dport;
      if (route.internal().dispatches()) {
        nat(SERVICES, name + DispatchComments.CLUSTER_IP, dest, jumpTo(internalChain));
        String masq = "";
        if (config.masqueradeAll()) {
          masq = "-j " + MARK_MASQ;
        } else if (config.podInterface() != null) {
          masq = "! " + IptablesAssembler.podInterfaceMatch(config) + " -j " + MARK_MASQ;
        } else if (config.clusterCidrs().size() == 1) {
          masq = "! -s " + config.clusterCidrs().get(0) + " -j " + MARK_MASQ;
        } else if (config.clusterCidrs().size() > 1) {
          masq = "-j " + MASQ_NON_POD;
        }
        if (!masq.isEmpty()) {
          nat(internalChain, name + DispatchComments.CLUSTER_IP, dest, masq);
        }
      } else {
        refuse(SERVICES, noEndpointsComment(name, hasAny), dest, route.internal());
      }
    }

    for (String ip : route.externalIps()) {
      String dest = protoMatch + " -d " + ip + " " + dport;
      if (hasAny) {
        nat(SERVICES, name + DispatchComments.EXTERNAL_IP, dest, jumpTo(ext));
      }
      if (!hasExternal) {
        refuse(EXTERNAL_SERVICES, noEndpointsComment(name, hasAny), dest, route.external());
      }
    }

    for (String ip : route.loadBalancerIps()) {
      String dest = protoMatch + " -d " + ip + " " + dport;
      if (hasAny) {
        nat(
            SERVICES,
            name + DispatchComments.LOAD_BALANCER_IP,
            dest,
            jumpTo(usesFirewallChain ? fw : ext));
      }
      if (usesFirewallChain) {
        filter(FIREWALL, name + DispatchComments.NOT_ACCEPTED + fw, dest, "-j DROP");
      }
      if (!hasExternal) {
        refuse(EXTERNAL_SERVICES, noEndpointsComment(name, hasAny), dest, route.external());
      }
    }

    if (route.nodePort() != 0) {
      String dest = protoMatch + " --dport " + route.nodePort();
      if (hasAny) {
        nat(NODEPORTS, name.toString(), dest, jumpTo(ext));
      }
      if (!hasExternal) {
        refuse(
            EXTERNAL_SERVICES,
            noEndpointsComment(name, hasAny),
            "-m addrtype --dst-type LOCAL " + dest,
            route.external());
      }
    }

    int healthCheckPort = sp.healthCheckNodePort();
    if (healthCheckPort > 0 && healthCheckPort <= 65535) {
      healthCheckNodePort = healthCheckPort;
      healthCheck =
          new IptablesRule(
              "filter",
              IptablesChains.NODEPORTS,
              name + DispatchComments.HEALTH_CHECK,
              "-m tcp -p tcp --dport " + healthCheckPort + " -j ACCEPT");
    }

    if (hasAny && route.externallyAccessible()) {
      if (!externalLocal) {
        nat(ext, "masquerade traffic for " + name + " external destinations", "-j " + MARK_MASQ);
      } else {
        if (config.podInterface() != null) {
          nat(
              ext,
              "pod traffic for " + name + " external destinations",
              IptablesAssembler.podInterfaceMatch(config),
              jumpTo(svc));
        }
        for (String cidr : config.clusterCidrs()) {
          nat(ext, "pod traffic for " + name + " external destinations", "-s " + cidr, jumpTo(svc));
        }
        nat(
            ext,
            "masquerade LOCAL traffic for " + name + " external destinations",
            "-m addrtype --src-type LOCAL",
            "-j " + MARK_MASQ);
        nat(
            ext,
            "route LOCAL traffic for " + name + " external destinations",
            "-m addrtype --src-type LOCAL",
            jumpTo(svc));
      }
      if (hasExternal) {
        nat(ext, null, jumpTo(externalLocal ? svl : svc));
      }
    }

    // Accepted sources go on to EXT; the rest, not DNATed, meet the DROP in filter FIREWALL.
    if (usesFirewallChain) {
      for (Cidr range : route.allowedSources()) {
        nat(fw, name + DispatchComments.LOAD_BALANCER_IP, "-s " + range, jumpTo(ext));
      }
      nat(fw, "other traffic to " + name + " will be dropped by " + FIREWALL);
    }

    Long sticky = route.sticky() ? route.affinitySeconds() : null;
    if (route.usesCluster() && route.spills()) {
      spill(name, svc, IptablesChains.SPZ_PREFIX + hash, route, sticky);
    } else if (route.usesCluster()) {
      dispatch(name, svc, route.cluster(), sticky);
    }
    if (route.usesLocal()) {
      dispatch(name, svl, route.local(), sticky);
    }
    Map<String, Endpoint> reachable = new LinkedHashMap<>();
    if (route.usesCluster()) {
      route.cluster().forEach(e -> reachable.putIfAbsent(e.address(), e));
      route.spill().spread().forEach(e -> reachable.putIfAbsent(e.address(), e));
    }
    if (route.usesLocal()) {
      route.local().forEach(e -> reachable.putIfAbsent(e.address(), e));
    }
    for (Endpoint endpoint : reachable.values()) {
      String sep = sepName(name, endpoint);
      // First, so it counts every new connection this chain DNATs (nat sees only first packets).
      if (config.countsLocality()) {
        nat(sep, null, "-j " + IptablesChains.counter(endpoint.locality()));
        if (sp.observeLocality()) {
          nat(
              sep,
              null,
              "-j "
                  + IptablesChains.serviceCounter(
                      IptablesChains.serviceCounterStem(name), endpoint.locality()));
        }
      }
      nat(sep, endpointComment(name.toString()), "-s " + endpoint.ip(), "-j " + MARK_MASQ);
      nat(
          sep,
          endpointComment(name.toString()),
          sticky == null ? "" : "-m recent --name " + sep + " --set",
          protoMatch,
          "-j DNAT --to-destination " + endpoint.address());
    }
  }

  /** Remembered clients first; then the zone's share goes in-zone, the rest to any endpoint. */
  private void spill(ServicePortName name, String svc, String spz, PortRoute route, Long sticky) {
    if (sticky != null) {
      remembered(name, svc, route.spill().spread(), sticky);
    }
    nat(
        svc,
        name + " keeps its zone's share in-zone",
        "-m statistic --mode random --probability "
            + String.format(Locale.ROOT, "%.10f", route.spill().keepPerMille() / 1000.0),
        jumpTo(spz));
    dispatch(name, svc, route.spill().spread(), null);
    dispatch(name, spz, route.cluster(), null);
  }

  private void dispatch(ServicePortName name, String chain, List<Endpoint> endpoints, Long sticky) {
    if (sticky != null) {
      remembered(name, chain, endpoints, sticky);
    }
    int n = endpoints.size();
    for (int i = 0; i < n; i++) {
      Endpoint endpoint = endpoints.get(i);
      nat(
          chain,
          endpointComment(name + " -> " + endpoint.address()),
          i < n - 1
              ? "-m statistic --mode random --probability " + IptablesRenderer.probability(n - i)
              : "",
          jumpTo(sepName(name, endpoint)));
    }
  }

  /** ClientIP affinity: a client an endpoint's recent list holds goes back to it. */
  private void remembered(
      ServicePortName name, String chain, List<Endpoint> endpoints, long sticky) {
    for (Endpoint endpoint : endpoints) {
      String sep = sepName(name, endpoint);
      nat(
          chain,
          endpointComment(name + " -> " + endpoint.address()),
          "-m recent --name " + sep + " --rcheck --seconds " + sticky + " --reap",
          jumpTo(sep));
    }
  }

  private String sepName(ServicePortName name, Endpoint endpoint) {
    return sepNames.computeIfAbsent(endpoint.address(), a -> IptablesChains.sep(name, endpoint));
  }

  private String noEndpointsComment(ServicePortName name, boolean hasAny) {
    return name + (hasAny ? DispatchComments.NO_LOCAL_ENDPOINTS : DispatchComments.NO_ENDPOINTS);
  }

  /** The verdict stays here, so a damaged counter chain never lets such a packet through. */
  private void refuse(String chain, String comment, String match, Verdict verdict) {
    if (config.countsLocality()) {
      filter(chain, comment, match, "-j " + IptablesChains.COUNT_NO_ENDPOINTS);
    }
    filter(chain, comment, match, verdict == Verdict.DROP ? "-j DROP" : reject);
  }

  private String endpointComment(String text) {
    return large ? null : text;
  }
}
