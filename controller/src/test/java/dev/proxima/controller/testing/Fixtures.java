package dev.proxima.controller.testing;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Builders for the objects the controller's tests feed it, kept terse so tables stay readable. */
public final class Fixtures {
  public static final String NAMESPACE = "test";

  private Fixtures() {}

  public static Service service(String name, String trafficDistribution) {
    return service(name, trafficDistribution, Map.of());
  }

  public static Service service(
      String name, String trafficDistribution, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withAnnotations(annotations.isEmpty() ? null : annotations)
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", name))
        .withTrafficDistribution(trafficDistribution)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  public static EndpointSlice slice(String name, String service, Endpoint... endpoints) {
    return sliceOfType(name, service, "IPv4", endpoints);
  }

  public static EndpointSlice sliceOfType(
      String name, String service, String addressType, Endpoint... endpoints) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withLabels(
            Map.of(
                Labels.SERVICE_NAME, service, Labels.MANAGED_BY, Labels.UPSTREAM_SLICE_CONTROLLER))
        .endMetadata()
        .withAddressType(addressType)
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .withEndpoints(Arrays.asList(endpoints))
        .build();
  }

  /** An endpoint; zone and node may be null, readiness null means "unknown" as in the API. */
  public static EndpointBuilder endpoint(String ip, String zone, String node, Boolean ready) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withZone(zone)
        .withNodeName(node)
        .withNewConditions()
        .withReady(ready)
        .withServing(ready)
        .withTerminating(false)
        .endConditions();
  }

  public static Endpoint ready(String ip, String zone, String node) {
    return endpoint(ip, zone, node, true).build();
  }

  public static Endpoint unready(String ip, String zone, String node) {
    return endpoint(ip, zone, node, false).build();
  }

  public static EndpointHints hints(List<String> zones, List<String> nodes) {
    var hints = new EndpointHints();
    hints.setForZones(zones == null ? null : zones.stream().map(ForZone::new).toList());
    hints.setForNodes(nodes == null ? null : nodes.stream().map(ForNode::new).toList());
    return hints;
  }

  public static EndpointHints zoneHint(String zone) {
    return hints(List.of(zone), null);
  }

  public static EndpointHints zoneAndNodeHint(String zone, String node) {
    return hints(List.of(zone), List.of(node));
  }

  public static Endpoint withHints(Endpoint endpoint, EndpointHints hints) {
    return new EndpointBuilder(endpoint).withHints(hints).build();
  }

  public static io.fabric8.kubernetes.api.model.Node node(String name, String zone, String cpu) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(zone == null ? Map.of() : Map.of(Labels.ZONE, zone))
        .endMetadata()
        .withNewStatus()
        .withAllocatable(Map.of("cpu", new Quantity(cpu)))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  /** Sets (or with null, removes) a stored Service's spec.trafficDistribution. */
  public static void setTrafficDistribution(
      io.fabric8.kubernetes.client.KubernetesClient client, String name, String value) {
    // A merge patch without a resourceVersion: an edit (read, then a patch carrying the version
    // read) races the controller's own status writes and fails now and then with a conflict.
    client
        .services()
        .inNamespace(NAMESPACE)
        .withName(name)
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"spec\":{\"trafficDistribution\":"
                + (value == null ? "null" : "\"" + value + "\"")
                + "}}");
  }
}
