package dev.proxima.proxy.dataplane;

import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One family's rules in the kernel, as one mode expresses them. The runtime's proxier decides what
 * to program (planning is shared by every mode); a data plane renders it and loads it atomically.
 * After a failure it may have moved ahead of the kernel, so the caller's next call is {@link
 * #replaceAll}.
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

  /**
   * @param nodePortAddresses empty means every local address
   * @param nodePodCidrs the node's spec.podCIDRs, pod traffic in --detect-local-mode=NodeCIDR
   */
  Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs);

  default Outcome replaceAll(List<ServicePortRules> ports, List<String> nodePortAddresses) {
    return replaceAll(ports, nodePortAddresses, List.of());
  }

  /**
   * The ServiceCIDR objects' ranges for the next sync. Only the nftables mode uses them, as
   * kube-proxy's: it drops traffic to addresses of these ranges that no Service holds.
   */
  default void serviceCidrs(List<String> cidrs) {}

  /** Loads only these changes; a null value removes the Service port. */
  Outcome update(Map<ServicePortName, ServicePortRules> changes);

  /** Lines handed to the kernel by the latest sync, for its log line. */
  default int linesLoaded() {
    return 0;
  }

  List<String> warnings();

  /**
   * Deletes what earlier syncs stopped using once it is safe to (nftables: chains and sets unused
   * for a second or more). Called on the sync thread between syncs.
   */
  default void removeStale() {}

  /**
   * False when rules Proxima relies on vanished behind its back (another tool flushed a table).
   * Checked every sync period, so it may run host tools.
   */
  default boolean intact() {
    return true;
  }

  /**
   * Whether this data plane counts the connections of Service ports marked {@code observeLocality}
   * per locality; the proxier applies {@code --observe-locality} and its series cap only then.
   */
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
