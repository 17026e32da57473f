package dev.proxima.proxy.plan;

import dev.proxima.model.Labels;
import dev.proxima.proxy.catalog.ServiceCatalog;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.selection.EndpointSelection;
import dev.proxima.proxy.selection.EndpointSelector;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collection;
import java.util.List;

/**
 * What one node's proxy programs for one IP family: every Service port it handles, the endpoints it
 * chose for it and why. Pure; shared by the live proxy, {@code explain} and {@code render}.
 */
public final class NodePlanner {
  private NodePlanner() {}

  /** One Service port's decision on this node. */
  public record PlannedPort(
      ServicePort port,
      List<Endpoint> endpoints,
      EndpointSelection selection,
      TopologyFallback fallback) {
    public PlannedPort {
      endpoints = List.copyOf(endpoints);
    }
  }

  /** Everything planned for one family, with the input problems met on the way. */
  public record FamilyPlan(
      IpFamily family,
      String nodeName,
      String nodeZone,
      List<PlannedPort> ports,
      List<String> skipped,
      List<String> warnings) {
    public FamilyPlan {
      ports = List.copyOf(ports);
      skipped = List.copyOf(skipped);
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * @param node this proxy's Node, or null when it is not known (then no zone hints match)
   */
  public static FamilyPlan plan(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      Collection<Service> services,
      Collection<EndpointSlice> slices) {
    var zone = zoneOf(node);
    var catalog =
        ServiceCatalog.build(
            services, slices, new ServiceCatalog.Options(nodeName, family, serviceProxyName));
    var ports =
        catalog.entries().stream()
            .map(
                entry -> {
                  var selection =
                      EndpointSelector.select(entry.endpoints(), entry.port(), nodeName, zone);
                  var fallback =
                      TopologyFallback.classify(
                          entry.port().trafficDistribution(),
                          selection.topology(),
                          entry.endpoints(),
                          nodeName,
                          zone);
                  return new PlannedPort(entry.port(), entry.endpoints(), selection, fallback);
                })
            .toList();
    return new FamilyPlan(family, nodeName, zone, ports, catalog.skipped(), catalog.warnings());
  }

  /** The ports of one Service on this node; empty when the Service is gone or not handled here. */
  public static List<PlannedPort> planService(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      Service service,
      Collection<EndpointSlice> slices) {
    if (service == null) {
      return List.of();
    }
    return plan(family, nodeName, node, serviceProxyName, List.of(service), slices).ports();
  }

  static String zoneOf(Node node) {
    if (node == null || node.getMetadata() == null || node.getMetadata().getLabels() == null) {
      return null;
    }
    var zone = node.getMetadata().getLabels().get(Labels.ZONE);
    return zone == null || zone.isEmpty() ? null : zone;
  }
}
