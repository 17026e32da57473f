package dev.proxima.proxy.conformance;

import static dev.proxima.proxy.testing.ApiObjects.serviceCidr;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a scenario's Service entries into the Kubernetes objects they stand for, and those into a
 * state file as {@code kubectl get -o yaml} prints it, which is what the {@code render} command
 * reads.
 */
final class ScenarioObjects {
  private ScenarioObjects() {}

  /** The node, every Service and every slice of the scenario, as a multi-document YAML stream. */
  static String stateFile(FlowTable.Node node, FlowTable.Scenario scenario) {
    var serialization = new KubernetesSerialization();
    var documents = new StringBuilder();
    for (var object : objects(node, scenario)) {
      var yaml = serialization.asYaml(object);
      documents.append(yaml.startsWith("---") ? "" : "---\n").append(yaml);
      if (!yaml.endsWith("\n")) {
        documents.append('\n');
      }
    }
    return documents.toString();
  }

  static List<HasMetadata> objects(FlowTable.Node node, FlowTable.Scenario scenario) {
    var objects = new ArrayList<HasMetadata>();
    objects.add(
        new NodeBuilder()
            .withNewMetadata()
            .withName(node.name())
            .endMetadata()
            .withNewSpec()
            .withPodCIDRs(scenario.settings().nodePodCidrs())
            .endSpec()
            .withNewStatus()
            .withAddresses(
                node.addresses().stream()
                    .map(
                        address ->
                            new NodeAddressBuilder()
                                .withType("InternalIP")
                                .withAddress(address)
                                .build())
                    .toList())
            .endStatus()
            .build());
    if (!scenario.settings().serviceCidrs().isEmpty()) {
      objects.add(serviceCidr(scenario.settings().serviceCidrs()));
    }
    for (var service : scenario.services()) {
      objects.add(service(service));
      if (service.get("slice") != null) {
        objects.add(slice(service));
      }
    }
    return objects;
  }

  static List<Map<String, Object>> endpoints(Map<String, Object> service) {
    return list(FlowTable.map(service.get("slice")).get("endpoints"));
  }

  static List<Map<String, Object>> slicePorts(Map<String, Object> service) {
    return list(FlowTable.map(service.get("slice")).get("ports"));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return value == null ? List.of() : (List<Map<String, Object>>) value;
  }

  private static String namespace(Map<String, Object> service) {
    return ((String) service.get("name")).split("/")[0];
  }

  private static String name(Map<String, Object> service) {
    return ((String) service.get("name")).split("/")[1];
  }

  private static HasMetadata service(Map<String, Object> entry) {
    var ports = new ArrayList<io.fabric8.kubernetes.api.model.ServicePort>();
    for (var port : list(entry.get("ports"))) {
      var builder =
          new ServicePortBuilder()
              .withName((String) port.get("name"))
              .withProtocol((String) port.getOrDefault("protocol", "TCP"))
              .withPort((Integer) port.get("port"));
      if (port.get("nodePort") != null) {
        builder.withNodePort((Integer) port.get("nodePort"));
      }
      // An unset targetPort means the Service port, as the API server would default it.
      builder.withTargetPort(
          new IntOrString((Integer) port.getOrDefault("targetPort", port.get("port"))));
      ports.add(builder.build());
    }
    var builder =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace(namespace(entry))
            .withName(name(entry))
            .endMetadata()
            .withNewSpec()
            .withType((String) entry.getOrDefault("type", "ClusterIP"))
            .withClusterIP((String) entry.get("clusterIP"))
            .withClusterIPs((String) entry.get("clusterIP"))
            .withIpFamilies(FlowTable.isIpv6((String) entry.get("clusterIP")) ? "IPv6" : "IPv4")
            .withPorts(ports)
            .withExternalIPs(FlowTable.strings(entry.get("externalIPs")))
            .withLoadBalancerSourceRanges(FlowTable.strings(entry.get("sourceRanges")))
            .withExternalTrafficPolicy((String) entry.get("externalTrafficPolicy"))
            .withInternalTrafficPolicy((String) entry.get("internalTrafficPolicy"))
            .withHealthCheckNodePort((Integer) entry.get("healthCheckNodePort"))
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .withIngress(ingress(entry.get("loadBalancerIPs")))
            .endLoadBalancer()
            .endStatus();
    return builder.build();
  }

  /** Each entry an IP, or {ip, ipMode} for an ingress with an IP mode. */
  private static List<LoadBalancerIngress> ingress(Object entries) {
    var ingress = new ArrayList<LoadBalancerIngress>();
    for (var entry : entries == null ? List.of() : (List<?>) entries) {
      var fields = entry instanceof Map<?, ?> map ? map : Map.of("ip", entry);
      ingress.add(
          new LoadBalancerIngressBuilder()
              .withIp(String.valueOf(fields.get("ip")))
              .withIpMode((String) fields.get("ipMode"))
              .build());
    }
    return ingress;
  }

  private static HasMetadata slice(Map<String, Object> service) {
    var endpoints = new ArrayList<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint>();
    for (var endpoint : endpoints(service)) {
      endpoints.add(
          new EndpointBuilder()
              .withAddresses((String) endpoint.get("ip"))
              .withNodeName((String) endpoint.get("node"))
              .withConditions(
                  new EndpointConditionsBuilder()
                      .withReady((Boolean) endpoint.get("ready"))
                      .withServing((Boolean) endpoint.get("serving"))
                      .withTerminating((Boolean) endpoint.get("terminating"))
                      .build())
              .build());
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace(service))
        .withName(name(service) + "-1")
        .withLabels(Map.of("kubernetes.io/service-name", name(service)))
        .endMetadata()
        .withAddressType(FlowTable.isIpv6((String) service.get("clusterIP")) ? "IPv6" : "IPv4")
        .withEndpoints(endpoints)
        .withPorts(
            slicePorts(service).stream()
                .map(
                    port ->
                        new EndpointPortBuilder()
                            .withName((String) port.get("name"))
                            .withProtocol((String) port.getOrDefault("protocol", "TCP"))
                            .withPort((Integer) port.get("port"))
                            .build())
                .toList())
        .build();
  }
}
