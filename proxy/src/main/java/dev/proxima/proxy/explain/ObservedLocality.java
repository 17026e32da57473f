package dev.proxima.proxy.explain;

import dev.proxima.proxy.model.ServicePortName;
import java.time.Instant;

/**
 * Where this node's connections to a Service port actually went, as the kernel counted them: the
 * place {@code explain --live} shows it. The kernel counts each node's connections by locality (the
 * {@code proxima_proxy_connections_total} metric), but not yet per Service port, so the only source
 * is {@link #NOT_COUNTED}, and the report says so instead of showing numbers; a per-port counting
 * source implements this interface and the report shows its figures per Service port.
 */
public interface ObservedLocality {
  /** Connections counted since {@code since}, by where their endpoint was. */
  record Counts(long local, long sameZone, long otherZones, Instant since) {}

  /** Why nothing is counted, or null when this source counts. */
  String notCountedBecause();

  /** The port's counts, or null when nothing was counted for it. */
  Counts of(ServicePortName port);

  /** This proxy counts nothing per Service port. */
  ObservedLocality NOT_COUNTED =
      new ObservedLocality() {
        @Override
        public String notCountedBecause() {
          return "per Service port not yet; this node's totals are proxima_proxy_connections_total";
        }

        @Override
        public Counts of(ServicePortName port) {
          return null;
        }
      };
}
