package dev.proxima.model.state;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * The objects of a state file, in file order.
 *
 * @param ignored one line per document that was not a Service, EndpointSlice or Node
 */
public record ClusterState(
    List<Service> services,
    List<EndpointSlice> endpointSlices,
    List<Node> nodes,
    List<String> ignored) {
  public ClusterState {
    services = List.copyOf(services);
    endpointSlices = List.copyOf(endpointSlices);
    nodes = List.copyOf(nodes);
    ignored = List.copyOf(ignored);
  }
}
