package dev.proxima.proxy.dataplane;

import dev.proxima.proxy.kernel.Iptables;
import dev.proxima.proxy.kernel.IptablesBackend;
import dev.proxima.proxy.kernel.IptablesKernel;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import java.time.Clock;
import java.util.List;
import java.util.function.Function;

@FunctionalInterface
public interface DataPlanes {
  DataPlane forFamily(IpFamily family, ProxyMetrics metrics, Clock clock);

  static DataPlanes nftables(RuleSettings settings, RuleLoader nft) {
    return (family, metrics, clock) -> new NftDataPlane(family, settings, nft, metrics, clock);
  }

  static DataPlanes iptables(RuleSettings settings, Function<IpFamily, IptablesKernel> kernels) {
    return (family, metrics, clock) ->
        new IptablesDataPlane(family, settings, kernels.apply(family), metrics);
  }

  /** Every family's rules go to one loader, as in a dry run, where it prints them. */
  static <L extends IptablesKernel & RuleLoader> DataPlanes of(
      ProxyMode mode, RuleSettings settings, L loader) {
    return mode == ProxyMode.iptables
        ? iptables(settings, family -> loader)
        : nftables(settings, loader);
  }

  static DataPlanes onThisHost(
      ProxyMode mode, RuleSettings settings, IptablesBackend backend, RuleLoader nft) {
    return mode == ProxyMode.iptables
        ? iptables(settings, family -> new Iptables(List.of(), family, backend))
        : nftables(settings, nft);
  }
}
