package dev.proxima.proxy.dataplane;

import dev.proxima.proxy.kernel.Iptables;
import dev.proxima.proxy.kernel.IptablesKernel;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortCounts;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.iptables.IptablesAssembler;
import dev.proxima.proxy.render.iptables.IptablesChains;
import dev.proxima.proxy.render.iptables.IptablesCounters;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.render.iptables.JumpRule;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The iptables mode: Proxima's {@code PROXIMA-} chains, written with {@code iptables-restore
 * --noflush}. A full sync writes every chain (on the nft backend in buffers of whole Service
 * ports), deletes those no longer needed, then ensures the jumps and the canary; a partial sync
 * rewrites the top-level chains and the changed Services' own. Counter chains are written only when
 * missing, so their counters survive every later restore.
 */
public final class IptablesDataPlane implements DataPlane {
  private final IpFamily family;
  private final RuleSettings settings;
  private final IptablesKernel iptables;
  private final ProxyMetrics metrics;
  private IptablesAssembler assembler;
  private int linesLoaded;

  /** Read at scrape time: taken after each loaded buffer, so it never names unloaded chains. */
  private volatile Map<String, ServicePortName> countedPorts = Map.of();

  public IptablesDataPlane(
      IpFamily family, RuleSettings settings, IptablesKernel iptables, ProxyMetrics metrics) {
    this.family = family;
    this.settings = settings;
    this.iptables = iptables;
    this.metrics = metrics;
  }

  @Override
  public Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs) {
    linesLoaded = 0;
    assembler = new IptablesAssembler(settings.forFamily(family, nodePortAddresses, nodePodCidrs));
    Outcome outcome = Outcome.UNCHANGED;
    for (String buffer :
        assembler.replaceAllInBatches(ports, iptables.listing(), iptables.fullSyncLines())) {
      outcome = load(buffer, false);
      if (outcome.status() != Status.LOADED) {
        return outcome;
      }
    }
    if (outcome.status() != Status.LOADED) {
      return outcome;
    }
    for (JumpRule jump : IptablesRenderer.jumpRules(assembler.config())) {
      if (!iptables.has(jump)) {
        var inserted = iptables.insert(jump);
        if (!inserted.succeeded()) {
          metrics.iptablesRestoreFailed(family, false);
          return Outcome.failed(
              "could not add the jump from " + jump.chain() + ": " + inserted.output().strip());
        }
      }
    }
    return outcome;
  }

  @Override
  public Outcome update(Map<ServicePortName, ServicePortRules> changes) {
    linesLoaded = 0;
    if (assembler == null) {
      return Outcome.NEEDS_FULL;
    }
    return assembler
        .update(changes)
        .map(buffer -> buffer.isEmpty() ? Outcome.UNCHANGED : load(buffer, true))
        .orElse(Outcome.NEEDS_FULL);
  }

  @Override
  public boolean countsPerServicePort() {
    return settings.observeLocality().counts();
  }

  /** Empty until the node counter chains are all there. */
  @Override
  public Optional<ConnectionCounts> connectionCounts() {
    var ports = countedPorts;
    return iptables
        .savedCounters()
        .map(IptablesCounters::parse)
        .flatMap(
            counts ->
                ConnectionCounts.from(
                        counts, IptablesChains::counter, IptablesChains.COUNT_NO_ENDPOINTS)
                    .map(
                        node ->
                            new ConnectionCounts(
                                node.byLocality(),
                                node.withoutEndpoints(),
                                ServicePortCounts.of(
                                    IptablesCounters.servicePorts(counts, ports)))));
  }

  @Override
  public int linesLoaded() {
    return linesLoaded;
  }

  @Override
  public List<String> warnings() {
    return assembler == null ? List.of() : assembler.warnings();
  }

  @Override
  public boolean intact() {
    if (assembler == null) {
      return true;
    }
    for (String table : Iptables.TABLES) {
      if (!iptables.hasCanary(table)) {
        return false;
      }
    }
    return IptablesRenderer.jumpRules(assembler.config()).stream().allMatch(iptables::has);
  }

  private Outcome load(String buffer, boolean partial) {
    linesLoaded += lines(buffer);
    var result = iptables.apply(buffer);
    if (!result.succeeded()) {
      metrics.iptablesRestoreFailed(family, partial);
      return Outcome.failed(result.summary());
    }
    countedPorts = assembler.countedPorts();
    metrics.iptablesRules(family, assembler.ruleCounts(), assembler.lastWritten());
    return Outcome.LOADED;
  }

  /** Newline-terminated lines, plus an unterminated last one, without a copy of the buffer. */
  static int lines(String text) {
    int lines = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lines++;
      }
    }
    return text.isEmpty() || text.charAt(text.length() - 1) == '\n' ? lines : lines + 1;
  }
}
