package dev.proxima.proxy.runtime;

import dev.proxima.proxy.kernel.Iptables;
import dev.proxima.proxy.kernel.IptablesBackend;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

/** Makes each family's {@link DataPlane} for one mode. */
@FunctionalInterface
public interface DataPlanes {
  /**
   * @param clock the proxy's clock, for what a data plane does later than a sync
   */
  DataPlane forFamily(IpFamily family, ProxyMetrics metrics, Clock clock);

  /**
   * @param nft null in dry-run mode: transactions go to {@code dryRunOutput}
   */
  static DataPlanes nftables(RuleSettings settings, RuleLoader nft, Consumer<String> dryRunOutput) {
    return (family, metrics, clock) ->
        new NftDataPlane(family, settings, nft, dryRunOutput, metrics, clock);
  }

  /**
   * @param backend null in dry-run mode: buffers go to {@code dryRunOutput}
   * @param prefix what runs before each iptables tool; empty on a node
   */
  static DataPlanes iptables(
      RuleSettings settings,
      IptablesBackend backend,
      List<String> prefix,
      Consumer<String> dryRunOutput) {
    return (family, metrics, clock) ->
        new IptablesDataPlane(
            family,
            settings,
            backend == null ? null : new Iptables(prefix, family, backend),
            dryRunOutput,
            metrics);
  }

  /** The planes for a mode, on this host. */
  static DataPlanes of(
      ProxyMode mode,
      RuleSettings settings,
      boolean dryRun,
      IptablesBackend backend,
      RuleLoader nft,
      Consumer<String> dryRunOutput) {
    return mode == ProxyMode.iptables
        ? iptables(settings, dryRun ? null : backend, List.of(), dryRunOutput)
        : nftables(settings, dryRun ? null : nft, dryRunOutput);
  }
}
