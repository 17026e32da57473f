package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.render.iptables.IptablesChains.EXTERNAL_SERVICES;
import static dev.proxima.proxy.render.iptables.IptablesChains.FIREWALL;
import static dev.proxima.proxy.render.iptables.IptablesChains.FORWARD;
import static dev.proxima.proxy.render.iptables.IptablesChains.NODEPORTS;
import static dev.proxima.proxy.render.iptables.IptablesChains.POSTROUTING;
import static dev.proxima.proxy.render.iptables.IptablesChains.SERVICES;

import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** One family's Service rules as one {@code iptables-restore --noflush} buffer. Pure. */
public final class IptablesRenderer {
  private IptablesRenderer() {}

  /** Above this many endpoints in total, per-endpoint rules carry no {@code -m comment}. */
  public static final int LARGE_CLUSTER_ENDPOINTS = 1000;

  /** Without the jumps from the built-in chains ({@link #jumpRules}). */
  public static IptablesRendering render(FamilySettings config, List<ServicePortRules> services) {
    return renderAll(config, services, List.of());
  }

  /** With {@link #jumpRules} as {@code -I} lines: loaded twice, it inserts every jump twice. */
  public static IptablesRendering renderWithJumps(
      FamilySettings config, List<ServicePortRules> services) {
    return renderAll(config, services, jumpRules(config));
  }

  /** In the order to ensure them ({@code -C}, else {@code -I}): the last ends up first. */
  public static List<JumpRule> jumpRules(FamilySettings config) {
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
    return new JumpRule(table, chain, List.copyOf(spec));
  }

  private static final String[] PROBABILITIES = new String[1024];

  /** {@code %.10f} of 1/(n-i), kube-proxy's probability for rule i of n; common ones cached. */
  static String probability(int remaining) {
    if (remaining >= PROBABILITIES.length) {
      return String.format(Locale.ROOT, "%.10f", 1.0 / remaining);
    }
    if (PROBABILITIES[remaining] == null) {
      PROBABILITIES[remaining] = String.format(Locale.ROOT, "%.10f", 1.0 / remaining);
    }
    return PROBABILITIES[remaining];
  }

  private static IptablesRendering renderAll(
      FamilySettings config, List<ServicePortRules> services, List<JumpRule> jumps) {
    IptablesAssembler assembler = new IptablesAssembler(config);
    IptablesTransaction transaction = assembler.replaceAllTransaction(services);
    jumps.forEach(transaction::insertJump);
    return new IptablesRendering(transaction.text(), assembler.warnings());
  }
}
