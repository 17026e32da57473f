package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.render.iptables.IptablesChains.EXTERNAL_SERVICES;
import static dev.proxima.proxy.render.iptables.IptablesChains.FIREWALL;
import static dev.proxima.proxy.render.iptables.IptablesChains.FORWARD;
import static dev.proxima.proxy.render.iptables.IptablesChains.MARK_MASQ;
import static dev.proxima.proxy.render.iptables.IptablesChains.MASQ_NON_POD;
import static dev.proxima.proxy.render.iptables.IptablesChains.NODEPORTS;
import static dev.proxima.proxy.render.iptables.IptablesChains.POSTROUTING;
import static dev.proxima.proxy.render.iptables.IptablesChains.SERVICES;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.IpLiteral;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders one family's Service rules as one {@code iptables-restore --noflush} buffer; see the
 * package documentation for the layout. Pure: no I/O, and the same input gives the same bytes.
 */
public final class IptablesRenderer {
  private IptablesRenderer() {}

  /** Above this many endpoints in total, per-endpoint rules carry no {@code -m comment}. */
  public static final int LARGE_CLUSTER_ENDPOINTS = 1000;

  /**
   * The {@code *filter} and {@code *nat} sections for {@code iptables-restore --noflush}, without
   * the jumps from the built-in chains (ensure those with {@link #jumpRules}). Every Proxima
   * top-level and per-Service chain is declared with a {@code :CHAIN - [0:0]} line, which under
   * {@code --noflush} creates or flushes it; nothing else in the tables is touched.
   */
  public static IptablesRendering render(IptablesConfig config, List<ServicePortRules> services) {
    return new Pass(config).run(services, List.of());
  }

  /**
   * As {@link #render}, plus the {@link #jumpRules} as {@code -I} lines before each {@code COMMIT}:
   * a complete, self-contained ruleset for display ({@code proxima render}) or for loading into an
   * empty namespace. Unlike {@link #render} it is NOT idempotent: iptables-restore cannot test for
   * an existing rule, so loading it twice inserts every jump twice. The live proxy loads {@link
   * #render} and ensures the jumps with {@code iptables -C ... || iptables -I ...}.
   */
  public static IptablesRendering renderWithJumps(
      IptablesConfig config, List<ServicePortRules> services) {
    return new Pass(config).run(services, jumpRules(config));
  }

  /**
   * The jumps from the built-in chains into Proxima's, in the order to ensure them: each with
   * {@code iptables -C} ({@link JumpRule#checkArgs}) and, when missing, {@code iptables -I} ({@link
   * JumpRule#insertArgs}); as every one is prepended, the last in this list ends up first. Same for
   * both families (run with {@link IptablesConfig#command}).
   */
  public static List<JumpRule> jumpRules(IptablesConfig config) {
    List<String> newConn = List.of("-m", "conntrack", "--ctstate", "NEW");
    List<JumpRule> rules = new ArrayList<>();
    String external = "proxima externally-visible service portals";
    rules.add(jump("filter", "INPUT", newConn, external, EXTERNAL_SERVICES));
    rules.add(jump("filter", "FORWARD", newConn, external, EXTERNAL_SERVICES));
    rules.add(jump("filter", "INPUT", List.of(), "proxima health check service ports", NODEPORTS));
    rules.add(jump("filter", "FORWARD", newConn, "proxima service portals", SERVICES));
    rules.add(jump("filter", "OUTPUT", newConn, "proxima service portals", SERVICES));
    rules.add(jump("filter", "FORWARD", List.of(), "proxima forwarding rules", FORWARD));
    String firewall = "proxima load balancer firewall";
    rules.add(jump("filter", "INPUT", newConn, firewall, FIREWALL));
    rules.add(jump("filter", "OUTPUT", newConn, firewall, FIREWALL));
    rules.add(jump("filter", "FORWARD", newConn, firewall, FIREWALL));
    rules.add(jump("nat", "OUTPUT", List.of(), "proxima service portals", SERVICES));
    rules.add(jump("nat", "PREROUTING", List.of(), "proxima service portals", SERVICES));
    rules.add(jump("nat", "POSTROUTING", List.of(), "proxima postrouting rules", POSTROUTING));
    return List.copyOf(rules);
  }

  private static JumpRule jump(
      String table, String chain, List<String> match, String comment, String target) {
    List<String> spec = new ArrayList<>(match);
    spec.addAll(List.of("-m", "comment", "--comment", comment, "-j", target));
    return new JumpRule(table, chain, spec);
  }

  /** {@code %.10f} of 1/(n-i), kube-proxy's probability for rule i of n. */
  static String probability(int remaining) {
    return String.format(Locale.ROOT, "%.10f", 1.0 / remaining);
  }

  /** One table being written: its chains in declaration order, each with its rules. */
  private static final class Table {
    final String name;
    final Map<String, List<String>> chains = new LinkedHashMap<>();

    Table(String name) {
      this.name = name;
    }

    void declare(String chain) {
      chains.computeIfAbsent(chain, c -> new ArrayList<>());
    }

    /** Appends {@code -A chain parts...}; declares the chain and any Proxima jump target. */
    void add(String chain, String... parts) {
      declare(chain);
      StringBuilder line = new StringBuilder("-A ").append(chain);
      for (String part : parts) {
        if (part.isEmpty()) {
          continue;
        }
        line.append(' ').append(part);
        if (part.startsWith("-j PROXIMA-")) {
          declare(part.substring(3).split(" ")[0]);
        }
      }
      chains.get(chain).add(line.toString());
    }

    void write(StringBuilder out, List<JumpRule> jumps) {
      out.append('*').append(name).append('\n');
      for (String chain : chains.keySet()) {
        out.append(':').append(chain).append(" - [0:0]\n");
      }
      for (List<String> rules : chains.values()) {
        for (String rule : rules) {
          out.append(rule).append('\n');
        }
      }
      for (JumpRule jump : jumps) {
        if (jump.table().equals(name)) {
          out.append("-I ").append(jump.chain());
          for (String arg : jump.spec()) {
            out.append(' ').append(arg.indexOf(' ') >= 0 ? '"' + arg + '"' : arg);
          }
          out.append('\n');
        }
      }
      out.append("COMMIT\n");
    }
  }

  private static final class Pass {
    private final IptablesConfig config;
    private final IpFamily family;
    private final Table filter = new Table("filter");
    private final Table nat = new Table("nat");
    private final List<String> warnings = new ArrayList<>();
    private final Set<Integer> healthCheckPorts = new HashSet<>();
    private final String reject;
    private boolean large;

    Pass(IptablesConfig config) {
      this.config = config;
      this.family = config.family();
      this.reject = "-j REJECT --reject-with " + config.rejectWith();
    }

    IptablesRendering run(List<ServicePortRules> services, List<JumpRule> jumps) {
      for (String chain : List.of(SERVICES, EXTERNAL_SERVICES, FORWARD, NODEPORTS, FIREWALL)) {
        filter.declare(chain);
      }
      for (String chain : List.of(SERVICES, NODEPORTS, POSTROUTING, MARK_MASQ)) {
        nat.declare(chain);
      }
      fixedRules();

      List<ServicePortRules> sorted = new ArrayList<>(services);
      sorted.sort(Comparator.comparing(r -> r.port().name()));
      Set<ServicePortName> seen = new HashSet<>();
      List<ServicePortRules> accepted = new ArrayList<>();
      for (ServicePortRules rules : sorted) {
        if (!seen.add(rules.port().name())) {
          warnings.add(rules.port().name() + ": Service port given twice, later one skipped");
        } else {
          accepted.add(rules);
        }
      }
      int total = 0;
      for (ServicePortRules rules : accepted) {
        Set<String> addresses = new HashSet<>();
        rules.clusterOrEmpty().forEach(e -> addresses.add(e.address()));
        rules.localOrEmpty().forEach(e -> addresses.add(e.address()));
        total += addresses.size();
      }
      large = total > LARGE_CLUSTER_ENDPOINTS;

      for (ServicePortRules rules : accepted) {
        servicePort(rules);
      }
      nodePortsJump();

      StringBuilder out = new StringBuilder();
      filter.write(out, jumps);
      nat.write(out, jumps);
      return new IptablesRendering(out.toString(), warnings);
    }

    private void fixedRules() {
      String mark = config.masqueradeMark();
      filter.add(FORWARD, "-m conntrack --ctstate INVALID", "-j DROP");
      filter.add(
          FORWARD,
          comment("proxima forwarding rules"),
          "-m mark --mark " + mark + "/" + mark,
          "-j ACCEPT");
      filter.add(
          FORWARD,
          comment("proxima forwarding conntrack rule"),
          "-m conntrack --ctstate RELATED,ESTABLISHED",
          "-j ACCEPT");
      nat.add(POSTROUTING, "-m mark ! --mark " + mark + "/" + mark, "-j RETURN");
      nat.add(POSTROUTING, "-j MARK --xor-mark " + mark);
      nat.add(
          POSTROUTING,
          comment("proxima service traffic requiring SNAT"),
          "-j MASQUERADE --random-fully");
      nat.add(MARK_MASQ, "-j MARK --or-mark " + mark);
      if (!config.masqueradeAll() && config.clusterCidrs().size() > 1) {
        for (String cidr : config.clusterCidrs()) {
          nat.add(MASQ_NON_POD, "-s " + cidr, "-j RETURN");
        }
        nat.add(MASQ_NON_POD, "-j " + MARK_MASQ);
      }
    }

    private void nodePortsJump() {
      String comment =
          comment("proxima service nodeports; NOTE: this must be the last rule in this chain");
      if (config.nodePortAddresses().isEmpty()) {
        nat.add(
            SERVICES,
            comment,
            "-m addrtype --dst-type LOCAL ! -d " + config.loopback(),
            "-j " + NODEPORTS);
      } else {
        for (String address : config.nodePortAddresses()) {
          nat.add(SERVICES, comment, "-d " + address, "-j " + NODEPORTS);
        }
      }
    }

    private void servicePort(ServicePortRules rules) {
      ServicePort sp = rules.port();
      ServicePortName name = sp.name();
      if (sp.port() < 1 || sp.port() > 65535) {
        warnings.add(name + ": port " + sp.port() + " out of range, Service port skipped");
        return;
      }
      String proto = sp.protocol().lower();
      String protoMatch = "-m " + proto + " -p " + proto;
      String dport = "--dport " + sp.port();

      boolean clusterIpValid = IpFamily.of(sp.clusterIp()) == family;
      if (!clusterIpValid) {
        warnings.add(name + ": clusterIP " + sp.clusterIp() + " is not " + familyName());
      }
      List<String> externalIps = addresses(name, "externalIP", sp.externalIps());
      List<String> lbIps = addresses(name, "load-balancer IP", sp.loadBalancerIps());
      List<String> sourceRanges = new ArrayList<>();
      for (String range : sp.loadBalancerSourceRanges()) {
        String trimmed = range.trim();
        if (IpLiteral.familyOfCidr(trimmed) == family) {
          sourceRanges.add(trimmed);
        } else {
          warnings.add(
              name + ": loadBalancerSourceRange " + range + " is not an " + familyName() + " CIDR");
        }
      }
      int nodePort = sp.nodePort();
      if (nodePort < 0 || nodePort > 65535) {
        warnings.add(name + ": nodePort " + nodePort + " out of range, ignored");
        nodePort = 0;
      }
      List<Endpoint> cluster = endpoints(name, rules.clusterOrEmpty());
      List<Endpoint> local = endpoints(name, rules.localOrEmpty());

      boolean hasAny = rules.hasAnyEndpoints();
      boolean externallyAccessible = nodePort != 0 || !externalIps.isEmpty() || !lbIps.isEmpty();
      boolean internalLocal = sp.internalTrafficLocal();
      boolean externalLocal = sp.externalTrafficLocal() && sp.externallyAccessible();
      boolean usesCluster = !cluster.isEmpty() && sp.usesClusterEndpoints();
      boolean usesLocal = !local.isEmpty() && sp.usesLocalEndpoints();
      boolean hasInternal = hasAny && (!internalLocal || !local.isEmpty());
      boolean hasExternal = hasAny && (!externalLocal || !local.isEmpty());
      boolean usesExternalChain = hasAny && externallyAccessible;
      boolean usesFirewallChain =
          hasAny && !lbIps.isEmpty() && !sp.loadBalancerSourceRanges().isEmpty();

      String svc = IptablesChains.svc(name);
      String svl = IptablesChains.svl(name);
      String ext = IptablesChains.ext(name);
      String fw = IptablesChains.fw(name);
      String internalChain = internalLocal ? svl : svc;
      String externalPolicyChain = externalLocal ? svl : svc;
      if (hasInternal && !internalLocal && cluster.isEmpty()) {
        warnings.add(name + ": has endpoints but the Cluster list is empty; " + svc + " is empty");
      }

      // ClusterIP.
      if (clusterIpValid) {
        String dest = protoMatch + " -d " + sp.clusterIp() + " " + dport;
        if (hasInternal) {
          nat.add(SERVICES, comment(name + " cluster IP"), dest, "-j " + internalChain);
          String masq = "";
          if (config.masqueradeAll()) {
            masq = "-j " + MARK_MASQ;
          } else if (config.clusterCidrs().size() == 1) {
            masq = "! -s " + config.clusterCidrs().get(0) + " -j " + MARK_MASQ;
          } else if (config.clusterCidrs().size() > 1) {
            masq = "-j " + MASQ_NON_POD;
          }
          if (!masq.isEmpty()) {
            nat.add(internalChain, comment(name + " cluster IP"), dest, masq);
          }
        } else {
          filter.add(SERVICES, noEndpointsComment(name, hasAny), dest, noEndpointsTarget(hasAny));
        }
      }

      // externalIPs.
      for (String ip : externalIps) {
        String dest = protoMatch + " -d " + ip + " " + dport;
        if (hasAny) {
          nat.add(SERVICES, comment(name + " external IP"), dest, "-j " + ext);
        }
        if (!hasExternal) {
          filter.add(
              EXTERNAL_SERVICES, noEndpointsComment(name, hasAny), dest, noEndpointsTarget(hasAny));
        }
      }

      // Load-balancer IPs.
      for (String ip : lbIps) {
        String dest = protoMatch + " -d " + ip + " " + dport;
        if (hasAny) {
          nat.add(
              SERVICES,
              comment(name + " loadbalancer IP"),
              dest,
              "-j " + (usesFirewallChain ? fw : ext));
        }
        if (usesFirewallChain) {
          filter.add(FIREWALL, comment(name + " traffic not accepted by " + fw), dest, "-j DROP");
        }
        if (!hasExternal) {
          filter.add(
              EXTERNAL_SERVICES, noEndpointsComment(name, hasAny), dest, noEndpointsTarget(hasAny));
        }
      }

      // NodePort.
      if (nodePort != 0) {
        String dest = protoMatch + " --dport " + nodePort;
        if (hasAny) {
          nat.add(NODEPORTS, comment(name.toString()), dest, "-j " + ext);
        }
        if (!hasExternal) {
          filter.add(
              EXTERNAL_SERVICES,
              noEndpointsComment(name, hasAny),
              "-m addrtype --dst-type LOCAL " + dest,
              noEndpointsTarget(hasAny));
        }
      }

      int healthCheck = sp.healthCheckNodePort();
      if (healthCheck > 0 && healthCheck <= 65535 && healthCheckPorts.add(healthCheck)) {
        filter.add(
            NODEPORTS,
            comment(name + " health check node port"),
            "-m tcp -p tcp --dport " + healthCheck,
            "-j ACCEPT");
      }

      // External chain.
      if (usesExternalChain) {
        if (!externalLocal) {
          nat.add(
              ext,
              comment("masquerade traffic for " + name + " external destinations"),
              "-j " + MARK_MASQ);
        } else {
          for (String cidr : config.clusterCidrs()) {
            nat.add(
                ext,
                comment("pod traffic for " + name + " external destinations"),
                "-s " + cidr,
                "-j " + svc);
          }
          nat.add(
              ext,
              comment("masquerade LOCAL traffic for " + name + " external destinations"),
              "-m addrtype --src-type LOCAL",
              "-j " + MARK_MASQ);
          nat.add(
              ext,
              comment("route LOCAL traffic for " + name + " external destinations"),
              "-m addrtype --src-type LOCAL",
              "-j " + svc);
        }
        if (hasExternal) {
          nat.add(ext, "-j " + externalPolicyChain);
        }
      }

      // Firewall chain: accepted sources go on to EXT, the rest fall through to the DROP in
      // filter PROXIMA-FIREWALL (they are not DNATed, so the DROP rule still matches them).
      if (usesFirewallChain) {
        for (String range : sourceRanges) {
          nat.add(fw, comment(name + " loadbalancer IP"), "-s " + range, "-j " + ext);
        }
        nat.add(fw, comment("other traffic to " + name + " will be dropped by " + FIREWALL));
      }

      // Endpoint dispatch and endpoint chains.
      Integer sticky = null;
      if (sp.stickyTimeout() != null) {
        sticky = (int) Math.max(1, Math.min(Integer.MAX_VALUE, sp.stickyTimeout().toSeconds()));
      }
      if (usesCluster) {
        dispatch(name, svc, cluster, sticky);
      }
      if (usesLocal) {
        dispatch(name, svl, local, sticky);
      }
      Map<String, Endpoint> reachable = new LinkedHashMap<>();
      if (usesCluster) {
        cluster.forEach(e -> reachable.putIfAbsent(e.address(), e));
      }
      if (usesLocal) {
        local.forEach(e -> reachable.putIfAbsent(e.address(), e));
      }
      for (Endpoint endpoint : reachable.values()) {
        String sep = IptablesChains.sep(name, endpoint);
        nat.add(sep, endpointComment(name.toString()), "-s " + endpoint.ip(), "-j " + MARK_MASQ);
        nat.add(
            sep,
            endpointComment(name.toString()),
            sticky == null ? "" : "-m recent --name " + sep + " --set",
            protoMatch,
            "-j DNAT --to-destination " + endpoint.address());
      }
    }

    private void dispatch(
        ServicePortName name, String chain, List<Endpoint> endpoints, Integer sticky) {
      if (sticky != null) {
        for (Endpoint endpoint : endpoints) {
          String sep = IptablesChains.sep(name, endpoint);
          nat.add(
              chain,
              endpointComment(name + " -> " + endpoint.address()),
              "-m recent --name " + sep + " --rcheck --seconds " + sticky + " --reap",
              "-j " + sep);
        }
      }
      int n = endpoints.size();
      for (int i = 0; i < n; i++) {
        Endpoint endpoint = endpoints.get(i);
        nat.add(
            chain,
            endpointComment(name + " -> " + endpoint.address()),
            i < n - 1 ? "-m statistic --mode random --probability " + probability(n - i) : "",
            "-j " + IptablesChains.sep(name, endpoint));
      }
    }

    private List<String> addresses(ServicePortName name, String what, List<String> input) {
      Set<String> out = new LinkedHashSet<>();
      for (String address : input) {
        if (IpFamily.of(address) == family) {
          out.add(address);
        } else {
          warnings.add(name + ": " + what + " " + address + " is not " + familyName());
        }
      }
      return List.copyOf(out);
    }

    private List<Endpoint> endpoints(ServicePortName name, List<Endpoint> input) {
      List<Endpoint> out = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (Endpoint endpoint : input) {
        if (IpFamily.of(endpoint.ip()) != family) {
          warnings.add(name + ": endpoint " + endpoint.address() + " is not " + familyName());
        } else if (endpoint.port() < 1 || endpoint.port() > 65535) {
          warnings.add(name + ": endpoint " + endpoint.address() + " port out of range");
        } else if (seen.add(endpoint.address())) {
          out.add(endpoint);
        }
      }
      return out;
    }

    private String familyName() {
      return family.apiName();
    }

    private String noEndpointsComment(ServicePortName name, boolean hasAny) {
      return comment(name + (hasAny ? " has no local endpoints" : " has no endpoints"));
    }

    private String noEndpointsTarget(boolean hasAny) {
      return hasAny ? "-j DROP" : reject;
    }

    private static String comment(String text) {
      return "-m comment --comment " + (text.indexOf(' ') >= 0 ? '"' + text + '"' : text);
    }

    /** The comment of a per-endpoint rule, left out above {@link #LARGE_CLUSTER_ENDPOINTS}. */
    private String endpointComment(String text) {
      return large ? "" : comment(text);
    }
  }
}
