package dev.proxima.proxy.explain;

import dev.proxima.proxy.model.ServicePortName;
import java.time.Instant;

/**
 * Where this node's connections to a Service port actually went, as the kernel counted them: the
 * place {@code explain --live} shows it. Nothing counts connections yet, so the only source is
 * {@link #NOT_COUNTED}, and the report says so instead of showing numbers; a counting source
 * implements this interface and the report shows its figures per Service port.
 */
public interface ObservedLocality {
  /** Connections counted since {@code since}, by where their endpoint was. */
  record Counts(long local, long sameZone, long otherZones, Instant since) {}

  /** Why nothing is counted, or null when this source counts. */
  String notCountedBecause();

  /** The port's counts, or null when nothing was counted for it. */
  Counts of(ServicePortName port);

  /** This proxy counts nothing. */
  ObservedLocality NOT_COUNTED =
      new ObservedLocality() {
        @Override
        public String notCountedBecause() {
          return "this proxy does not count connections by locality yet";
        }

        @Override
        public Counts of(ServicePortName port) {
          return null;
        }
      };
}
