package dev.proxima.proxy.dataplane;

import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One family's rules in the kernel, as one mode renders and loads them atomically. After a failure
 * it may have moved ahead of the kernel, so the caller's next call is {@link #replaceAll}.
 */
public interface DataPlane {
  enum Status {
    LOADED,
    UNCHANGED,
    /** This change can only be expressed by {@link #replaceAll}. */
    NEEDS_FULL,
    /** Loading failed; the previous rules stay in place. */
    FAILED
  }

  record Outcome(Status status, String error) {
    static final Outcome LOADED = new Outcome(Status.LOADED, null);
    static final Outcome UNCHANGED = new Outcome(Status.UNCHANGED, null);
    static final Outcome NEEDS_FULL = new Outcome(Status.NEEDS_FULL, null);

    static Outcome failed(String error) {
      return new Outcome(Status.FAILED, error);
    }
  }

  /** No {@code nodePortAddresses} means every local address. */
  Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs);

  default Outcome replaceAll(List<ServicePortRules> ports, List<String> nodePortAddresses) {
    return replaceAll(ports, nodePortAddresses, List.of());
  }

  /** For the next sync; the nftables mode drops traffic to their addresses no Service holds. */
  default void serviceCidrs(List<String> cidrs) {}

  /** Loads only these changes; a null value removes the Service port. */
  Outcome update(Map<ServicePortName, ServicePortRules> changes);

  /** Lines handed to the kernel by the latest sync, for its log line. */
  default int linesLoaded() {
    return 0;
  }

  List<String> warnings();

  /** Deletes what earlier syncs stopped using once safe to; on the sync thread between syncs. */
  default void removeStale() {}

  /** False when rules Proxima relies on vanished (another tool flushed a table); may run tools. */
  default boolean intact() {
    return true;
  }

  /** Whether it counts connections per Service port; only then --observe-locality's cap applies. */
  default boolean countsPerServicePort() {
    return false;
  }

  /**
   * Read in one call at scrape time; empty when they cannot be read or this mode does not count.
   */
  default Optional<ConnectionCounts> connectionCounts() {
    return Optional.empty();
  }
}
