package dev.proxima.proxy.track;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.HashMap;

/** Services and slices in namespace {@code shop} with only what their stamps read. */
final class VersionedObjects {
  private VersionedObjects() {}

  static Service service(String name, String resourceVersion) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  /**
   * @param service the name its {@code kubernetes.io/service-name} label holds; null for no label
   */
  static EndpointSlice slice(String name, String service, String resourceVersion) {
    var labels = new HashMap<String, String>();
    if (service != null) {
      labels.put(Labels.SERVICE_NAME, service);
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(labels)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .withAddressType("IPv4")
        .build();
  }
}
