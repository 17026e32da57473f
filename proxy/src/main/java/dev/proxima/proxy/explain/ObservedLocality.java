package dev.proxima.proxy.explain;

import dev.proxima.proxy.model.ServicePortName;

/**
 * Where this node's connections to a Service port actually went, as the kernel counted them: the
 * place {@code explain --live} shows it. In either mode the proxy counts the ports of Services
 * annotated {@code proxima.dev/observe-locality: "true"} (all of them with {@code
 * --observe-locality=all}, under the series cap); a port it does not count has no figures.
 */
public interface ObservedLocality {
  /**
   * Connections counted since this proxy began counting the port (the figures of {@code
   * proxima_proxy_service_connections_total}), by where their endpoint was.
   */
  record Counts(long local, long sameZone, long otherZones, long unknown) {
    public long total() {
      return local + sameZone + otherZones + unknown;
    }
  }

  /** Why nothing is counted, or null when this source counts. */
  String notCountedBecause();

  /** The port's counts, or null when nothing was counted for it. */
  Counts of(ServicePortName port);

  static ObservedLocality notCounted(String reason) {
    return new ObservedLocality() {
      @Override
      public String notCountedBecause() {
        return reason;
      }

      @Override
      public Counts of(ServicePortName port) {
        return null;
      }
    };
  }
}
