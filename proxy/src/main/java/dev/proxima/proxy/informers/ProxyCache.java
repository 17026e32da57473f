package dev.proxima.proxy.informers;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What a proxier reads at sync time: the informer caches in the live proxy, fixed lists in tests.
 */
public interface ProxyCache {
  /** True once every informer has listed its objects; before that nothing is programmed. */
  boolean hasSynced();

  Collection<Service> services();

  Collection<EndpointSlice> endpointSlices();

  /** Null when it is gone. */
  Service service(ObjectKey key);

  /** The slices labelled with this Service's name, whoever manages them. */
  List<EndpointSlice> slicesOf(ObjectKey service);

  /** The Services whose object or slices changed for the rules since the previous call. */
  Set<ObjectKey> drainChangedServices();

  /** This proxy's Node, or null when it does not exist (yet). */
  Node node();

  /** The last-change-trigger-times seen since the previous call, for the latency metric. */
  List<Instant> drainTriggerTimes(IpFamily family);

  /** The ranges of the cluster's ServiceCIDR objects, both families; empty when none. */
  default List<String> serviceCidrs() {
    return List.of();
  }

  /** Every Node's addresses, which no Service may take; none when not known. */
  default ClusterNodeAddresses clusterNodeAddresses() {
    return ClusterNodeAddresses.NONE;
  }

  /** Each zone's share of the demand, for zone spill-over; unknown when not published. */
  default ZoneDemand zoneDemand() {
    return ZoneDemand.unknown();
  }

  /** This node's addresses from its status, for --nodeport-addresses. */
  List<String> nodeAddresses();
}
