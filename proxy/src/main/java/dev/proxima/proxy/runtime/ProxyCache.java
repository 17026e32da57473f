package dev.proxima.proxy.runtime;

import dev.proxima.proxy.model.IpFamily;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * What a proxier reads at sync time: the informer caches in the live proxy, fixed lists in tests.
 */
public interface ProxyCache {
  /** True once every informer has listed its objects; before that nothing is programmed. */
  boolean hasSynced();

  Collection<Service> services();

  Collection<EndpointSlice> endpointSlices();

  /** This proxy's Node, or null when it does not exist (yet). */
  Node node();

  /**
   * The last-change-trigger-time of endpoint changes seen since the previous call for this family,
   * for the network programming latency metric.
   */
  List<Instant> drainTriggerTimes(IpFamily family);

  /** This node's addresses from its status, for --nodeport-addresses. */
  List<String> nodeAddresses();
}
