package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.nft.ServicePortRules;
import dev.proxima.proxy.track.ListedComparison;
import dev.proxima.proxy.track.ObjectVersions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One family's rules in the kernel, as one mode expresses them. The {@link Proxier} decides what to
 * program (planning is shared by every mode); a data plane renders it and loads it atomically.
 * After a failure it may have moved ahead of the kernel, so the caller's next call is {@link
 * #replaceAll}.
 */
public interface DataPlane {
  enum Status {
    /** Rules were loaded. */
    LOADED,
    /** Nothing needed loading. */
    UNCHANGED,
    /** This change can only be expressed by {@link #replaceAll}. */
    NEEDS_FULL,
    /** Loading failed; the previous rules stay in place. */
    FAILED
  }

  /**
   * @param error the tool's message when {@code FAILED}
   */
  record Outcome(Status status, String error) {
    static final Outcome LOADED = new Outcome(Status.LOADED, null);
    static final Outcome UNCHANGED = new Outcome(Status.UNCHANGED, null);
    static final Outcome NEEDS_FULL = new Outcome(Status.NEEDS_FULL, null);

    static Outcome failed(String error) {
      return new Outcome(Status.FAILED, error);
    }
  }

  /**
   * Replaces every Proxima rule of this family with these Service ports.
   *
   * @param nodePortAddresses the node's addresses that accept NodePorts; empty means all local
   * @param nodePodCidrs the node's spec.podCIDRs, pod traffic in --detect-local-mode=NodeCIDR
   */
  Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs);

  /**
   * Called once as the proxy starts, as the informers list: a data plane may start finding out what
   * its first sync needs on a thread of its own meanwhile (nftables: whether the kernel has a table
   * its saved ruleset could describe).
   */
  default void starting() {}

  /**
   * {@link #starting()}, for a proxy that compares the informers' first lists with a saved
   * ruleset's stamps as they come: a data plane that reads such stamps says so ({@link
   * ListedComparison#awaitStamps}) and offers them, or that it has none, before {@link #takeUp} can
   * find the outcome in its snapshot.
   */
  default void starting(ListedComparison listed) {
    starting();
  }

  /**
   * Called as a full sync starts, before it plans every Service, with the arguments its {@link
   * #replaceAll} will get: a data plane may prepare on a thread of its own while the planning runs
   * (nftables, at the first sync after a start: read the saved ruleset and take it up).
   */
  default void fullSyncStarting(List<String> nodePortAddresses, List<String> nodePodCidrs) {}

  /**
   * What the Services of the next {@link #replaceAll} or {@link #update} were planned from, for a
   * data plane that saves what it loads (nftables with a state directory): saved beside the rules,
   * it lets a restarted proxy see that nothing changed without planning. Others ignore it.
   */
  default void planned(PlannedObjects objects) {}

  /**
   * At the first sync after a start, before anything is planned: true when the kernel's rules are
   * exactly what planning {@code objects} for {@code basis} would load, as the saved ruleset
   * vouches (nftables: its marker is the kernel's, and it was planned from the same basis,
   * settings, Service CIDRs and object revisions). The sync then loads and plans nothing, and the
   * next full sync plans every Service as usual. False otherwise, and the sync goes on as usual.
   *
   * @param objects the cache's Services and slices now, whose revisions are compared with the saved
   *     ones only when everything else holds
   */
  default boolean takeUp(
      String basis,
      ObjectVersions.Snapshot objects,
      List<String> nodePortAddresses,
      List<String> nodePodCidrs) {
    return false;
  }

  /** {@link #replaceAll(List, List, List)} for a node without pod CIDRs. */
  default Outcome replaceAll(List<ServicePortRules> ports, List<String> nodePortAddresses) {
    return replaceAll(ports, nodePortAddresses, List.of());
  }

  /**
   * The Service CIDRs (from ServiceCIDR objects) for the next {@link #replaceAll} or {@link
   * #update}, which load what changed. Only the nftables mode uses them, as kube-proxy's: it drops
   * traffic to addresses of these ranges that no Service holds. The iptables mode ignores them.
   */
  default void serviceCidrs(List<String> cidrs) {}

  /** Loads only these changes; a null value removes the Service port. */
  Outcome update(Map<ServicePortName, ServicePortRules> changes);

  /**
   * Lines handed to the kernel by the latest {@link #replaceAll} or {@link #update} (nft statements
   * or iptables-restore lines), for the sync's log line; 0 when nothing was loaded.
   */
  default int linesLoaded() {
    return 0;
  }

  /** What the latest render had to leave out. */
  List<String> warnings();

  /**
   * Deletes what earlier syncs stopped using once it is safe to (nftables: chains and sets unused
   * for a second or more). Called on the sync thread between syncs; failures are logged and retried
   * later, and never affect the rules in use.
   */
  default void removeStale() {}

  /**
   * False when rules Proxima relies on vanished behind its back (another tool flushed a table): the
   * next sync must then be full. Checked every sync period, so it may run host tools.
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
   * The kernel's connection counters for this family, read now in one call (at scrape time); empty
   * when they cannot be read (dry run, no table yet, the tool failed or timed out), or when this
   * mode does not count.
   */
  default Optional<ConnectionCounts> connectionCounts() {
    return Optional.empty();
  }
}
