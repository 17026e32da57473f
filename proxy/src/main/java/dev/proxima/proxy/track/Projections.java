package dev.proxima.proxy.track;

import dev.proxima.model.Annotations;
import dev.proxima.model.ZoneSpillOverSetting;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.Map;

/** The parts of Services and EndpointSlices the rules depend on; the rest must not cause a sync. */
public final class Projections {
  private Projections() {}

  /**
   * What of a Service the proxy uses. The UID and creation time decide who keeps an address two
   * Services claim, so a Service deleted and created again with the same spec is a change.
   */
  public record ServiceProjection(
      Map<String, String> labels,
      ServiceSpec spec,
      LoadBalancerStatus loadBalancer,
      String uid,
      String creationTimestamp,
      boolean observesLocality,
      ZoneSpillOverSetting zoneSpillOver) {}

  public record SliceProjection(
      Map<String, String> labels, String addressType, List<?> ports, List<?> endpoints) {}

  public static ServiceProjection of(Service service) {
    return new ServiceProjection(
        service.getMetadata().getLabels(),
        service.getSpec(),
        service.getStatus() == null ? null : service.getStatus().getLoadBalancer(),
        service.getMetadata().getUid(),
        service.getMetadata().getCreationTimestamp(),
        Annotations.observesLocality(service.getMetadata().getAnnotations()),
        ZoneSpillOverSetting.parse(service.getMetadata().getAnnotations()));
  }

  public static SliceProjection of(EndpointSlice slice) {
    return new SliceProjection(
        slice.getMetadata().getLabels(),
        slice.getAddressType(),
        slice.getPorts(),
        slice.getEndpoints());
  }
}
