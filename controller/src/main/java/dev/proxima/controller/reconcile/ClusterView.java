package dev.proxima.controller.reconcile;

import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Optional;

/**
 * Read access to the objects a Service's hints depend on; informer caches in the live controller.
 */
public interface ClusterView {
  Optional<Service> service(ObjectKey key);

  /** Every slice labelled with the Service's name in its namespace, whoever manages it. */
  List<EndpointSlice> slicesOf(ObjectKey service);

  /** Every Node; the Auto heuristic allocates by their zones and CPU. */
  List<Node> nodes();
}
