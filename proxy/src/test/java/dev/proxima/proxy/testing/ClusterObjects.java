package dev.proxima.proxy.testing;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Map;

/** The API objects the proxy's tests against an API server create, in their simplest form. */
public final class ClusterObjects {
  private ClusterObjects() {}

  /** A Node in a zone. */
  public static Node node(String name, String zone) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(Map.of(Labels.ZONE, zone))
        .endMetadata()
        .build();
  }

  /** A ClusterIP Service with one TCP port {@code http}, 80. */
  public static Service service(String namespace, String name, String clusterIp) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP(clusterIp)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  /** The IPv4 slice {@code SERVICE-1} of a Service: port {@code http} 8080, endpoints on a node. */
  public static EndpointSlice slice(
      String namespace, String service, String nodeName, String... endpointIps) {
    return ApiObjects.sliceOnNode(namespace, service, nodeName, endpointIps);
  }
}
