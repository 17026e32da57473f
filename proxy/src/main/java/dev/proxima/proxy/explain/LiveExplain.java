package dev.proxima.proxy.explain;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@code explain --live} shows of a running proxy at one moment: each family's latest plan
 * (the one its last successful sync loaded), cut to one Service or to a bounded number of Service
 * ports, with how the syncs went.
 *
 * @param servicePortsTotal the Service ports there were to show before the cut
 */
public record LiveExplain(
    String node,
    Instant at,
    boolean informersSynced,
    PendingChanges pending,
    List<SyncState> sync,
    List<NodePlanner.FamilyPlan> plans,
    ObjectKey service,
    int servicePortsTotal,
    ObservedLocality locality) {
  /**
   * Enough for every Service of a busy namespace; the answer stays a few megabytes at most, built
   * in the proxy's memory, whatever the cluster's size.
   */
  public static final int MAX_SERVICE_PORTS = 2000;

  /** Changes the informers saw that no sync has taken in yet. */
  public record PendingChanges(int services, int endpointSlices) {}

  public LiveExplain {
    Objects.requireNonNull(at, "at");
    sync = List.copyOf(sync);
    plans = List.copyOf(plans);
  }

  /** IPv6 is shown only when it has Service ports, as the offline {@code explain} does. */
  public static LiveExplain of(
      String node,
      Instant at,
      boolean informersSynced,
      PendingChanges pending,
      List<SyncState> sync,
      List<NodePlanner.FamilyPlan> plans,
      ObjectKey service,
      int maxServicePorts,
      ObservedLocality locality) {
    var shown = new ArrayList<NodePlanner.FamilyPlan>();
    int total = 0;
    int room = maxServicePorts;
    for (var plan : plans) {
      var ports =
          service == null
              ? plan.ports()
              : plan.ports().stream()
                  .filter(p -> p.port().name().service().equals(service))
                  .toList();
      if (plan.family() != IpFamily.IPV4 && ports.isEmpty()) {
        continue;
      }
      total += ports.size();
      var kept = ports.size() <= room ? ports : ports.subList(0, room);
      room -= kept.size();
      var keptNames =
          kept.stream().map(p -> p.port().name()).collect(java.util.stream.Collectors.toSet());
      var collisions =
          plan.collisions().stream()
              .filter(c -> keptNames.contains(c.winner()) || keptNames.contains(c.loser()))
              .toList();
      shown.add(
          new NodePlanner.FamilyPlan(
              plan.family(),
              plan.nodeName(),
              plan.nodeZone(),
              kept,
              plan.skipped(),
              plan.warnings(),
              collisions));
    }
    return new LiveExplain(
        node, at, informersSynced, pending, sync, shown, service, total, locality);
  }

  public int servicePortsShown() {
    return plans.stream().mapToInt(plan -> plan.ports().size()).sum();
  }

  public boolean truncated() {
    return servicePortsShown() < servicePortsTotal;
  }
}
