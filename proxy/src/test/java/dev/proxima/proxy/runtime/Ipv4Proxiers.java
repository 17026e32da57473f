package dev.proxima.proxy.runtime;

import dev.proxima.proxy.dataplane.DataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.PlanStore;
import java.time.Clock;

/** An IPv4 {@link Proxier} with a plan store of its own, as the tests of one family build it. */
final class Ipv4Proxiers {
  private Ipv4Proxiers() {}

  static Proxier of(
      ProxyConfig config,
      ProxyCache cache,
      DataPlane plane,
      Host host,
      ProxyMetrics metrics,
      ProxyHealth health,
      Clock clock) {
    return new Proxier(
        IpFamily.IPV4,
        config,
        cache,
        plane,
        host,
        metrics,
        health,
        clock,
        new PlanStore(IpFamily.IPV4, config.nodeName()));
  }
}
