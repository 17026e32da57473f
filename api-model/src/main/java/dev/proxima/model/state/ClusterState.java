package dev.proxima.model.state;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import java.util.List;

/**
 * The objects of a state file, in file order.
 *
 * @param serviceCidrs the ServiceCIDR objects (networking.k8s.io/v1), for the proxy's rules
 * @param ignored one line per thing the state leaves out: a document that was not a Service,
 *     EndpointSlice, Node or ServiceCIDR, or a kind the API server would not list
 */
public record ClusterState(
    List<Service> services,
    List<EndpointSlice> endpointSlices,
    List<Node> nodes,
    List<ServiceCIDR> serviceCidrs,
    List<String> ignored) {
  /** A state without ServiceCIDR objects. */
  public ClusterState(
      List<Service> services,
      List<EndpointSlice> endpointSlices,
      List<Node> nodes,
      List<String> ignored) {
    this(services, endpointSlices, nodes, List.of(), ignored);
  }

  public ClusterState {
    serviceCidrs = List.copyOf(serviceCidrs);
    services = List.copyOf(services);
    endpointSlices = List.copyOf(endpointSlices);
    nodes = List.copyOf(nodes);
    ignored = List.copyOf(ignored);
  }
}
