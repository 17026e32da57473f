package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.track.PendingChanges;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * What the proxy knows between syncs, as kube-proxy's proxier holds it: the changes no sync has
 * taken in yet (fed by the informers' handlers, shared by the families, since one Service change
 * concerns both) and, per family, what the last syncs planned. Pure: the runtime around it lists,
 * watches, loads and reports.
 */
public final class ProxyState {
  private final PendingChanges changes;
  private final Map<IpFamily, PlanStore> plans = new EnumMap<>(IpFamily.class);

  /** Slice changes triggered before {@code startedAt} were the predecessor's. */
  public ProxyState(Instant startedAt, String nodeName) {
    this.changes = new PendingChanges(startedAt);
    for (var family : IpFamily.values()) {
      plans.put(family, new PlanStore(family, nodeName));
    }
  }

  public PendingChanges changes() {
    return changes;
  }

  public PlanStore plans(IpFamily family) {
    return plans.get(family);
  }
}
