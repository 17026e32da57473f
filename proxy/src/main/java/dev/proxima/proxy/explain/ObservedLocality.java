package dev.proxima.proxy.explain;

import dev.proxima.proxy.model.ServicePortName;
import java.util.Map;

/**
 * Where this node's connections to a Service port actually went, as the kernel counted them: the
 * place {@code explain --live} shows it. In either mode the proxy counts the ports of Services
 * annotated {@code proxima.dev/observe-locality: "true"} (all of them with {@code
 * --observe-locality=all}, under the series cap); a port it does not count has no figures.
 *
 * @param notCountedBecause why nothing is counted, or null when the proxy counts
 */
public record ObservedLocality(String notCountedBecause, Map<ServicePortName, Counts> counts) {
  /**
   * Connections counted since this proxy began counting the port (the figures of {@code
   * proxima_proxy_service_connections_total}), by where their endpoint was.
   */
  public record Counts(long local, long sameZone, long otherZones, long unknown) {
    public long total() {
      return local + sameZone + otherZones + unknown;
    }
  }

  public ObservedLocality {
    counts = Map.copyOf(counts);
  }

  public static ObservedLocality notCounted(String reason) {
    return new ObservedLocality(reason, Map.of());
  }

  /** The port's counts, or null when nothing was counted for it. */
  public Counts of(ServicePortName port) {
    return counts.get(port);
  }
}
