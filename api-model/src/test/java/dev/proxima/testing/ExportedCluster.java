package dev.proxima.testing;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a synthetic cluster as {@code kubectl get services,endpointslices,nodes -A -o yaml} (or
 * {@code -o json}) prints it: one List whose items are the Services, then the EndpointSlices, then
 * the Nodes, each with the fields kubectl shows. Streamed, so a file of any size costs no memory.
 *
 * <p>Service {@code i} is {@code ns-(i % 100)/svc-i} on port 80 with ClusterIP {@code
 * 10.96.0.0/12}-ish addresses; every third one prefers the same zone, every third the same node.
 * Its one slice {@code svc-i-abcde} has {@code endpoints} ready pods spread over {@code nodes}
 * nodes in three zones, without hints.
 */
public final class ExportedCluster {
  /** The formats kubectl prints. */
  public enum Format {
    YAML,
    JSON
  }

  private ExportedCluster() {}

  public static void write(Path file, int services, int endpoints, int nodes, Format format)
      throws IOException {
    var factory =
        format == Format.YAML
            ? YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                .build()
            : new com.fasterxml.jackson.core.JsonFactory();
    var mapper = new ObjectMapper(factory).enable(SerializationFeature.INDENT_OUTPUT);
    try (var out = Files.newBufferedWriter(file);
        JsonGenerator generator = mapper.createGenerator(out)) {
      if (format == Format.JSON) {
        generator.useDefaultPrettyPrinter();
      }
      generator.writeStartObject();
      generator.writeStringField("apiVersion", "v1");
      generator.writeArrayFieldStart("items");
      for (int i = 0; i < services; i++) {
        mapper.writeValue(generator, service(i));
      }
      for (int i = 0; i < services; i++) {
        mapper.writeValue(generator, slice(i, endpoints, nodes));
      }
      for (int n = 0; n < nodes; n++) {
        mapper.writeValue(generator, node(n));
      }
      generator.writeEndArray();
      generator.writeStringField("kind", "List");
      generator.writeObjectFieldStart("metadata");
      generator.writeStringField("resourceVersion", "");
      generator.writeEndObject();
      generator.writeEndObject();
    }
  }

  public static String nodeName(int n) {
    return "node-%03d".formatted(n);
  }

  public static String zone(int n) {
    return "zone-" + (char) ('a' + n % 3);
  }

  public static String serviceName(int i) {
    return "svc-%05d".formatted(i);
  }

  public static String namespace(int i) {
    return "ns-%02d".formatted(i % 100);
  }

  public static String clusterIp(int i) {
    int n = i + 1;
    return "10." + (96 + (n >> 16)) + "." + ((n >> 8) & 255) + "." + (n & 255);
  }

  public static String podIp(int service, int endpoint, int endpoints) {
    int n = service * endpoints + endpoint + 1;
    return "10." + (128 + (n >> 16)) + "." + ((n >> 8) & 255) + "." + (n & 255);
  }

  private static Map<String, Object> service(int i) {
    var spec = new LinkedHashMap<String, Object>();
    spec.put("clusterIP", clusterIp(i));
    spec.put("clusterIPs", List.of(clusterIp(i)));
    spec.put("internalTrafficPolicy", "Cluster");
    spec.put("ipFamilies", List.of("IPv4"));
    spec.put("ipFamilyPolicy", "SingleStack");
    spec.put(
        "ports",
        List.of(Map.of("name", "http", "port", 80, "protocol", "TCP", "targetPort", 8080)));
    spec.put("selector", Map.of("app", serviceName(i)));
    spec.put("sessionAffinity", "None");
    switch (i % 3) {
      case 0 -> spec.put("trafficDistribution", "PreferSameZone");
      case 1 -> spec.put("trafficDistribution", "PreferSameNode");
      default -> {}
    }
    spec.put("type", "ClusterIP");
    var service = new LinkedHashMap<String, Object>();
    service.put("apiVersion", "v1");
    service.put("kind", "Service");
    service.put("metadata", metadata(serviceName(i), namespace(i), Map.of("app", serviceName(i))));
    service.put("spec", spec);
    service.put("status", Map.of("loadBalancer", Map.of()));
    return service;
  }

  private static Map<String, Object> slice(int i, int endpoints, int nodes) {
    var list = new java.util.ArrayList<Object>();
    for (int e = 0; e < endpoints; e++) {
      int node = (i * 7 + e) % nodes;
      var endpoint = new LinkedHashMap<String, Object>();
      endpoint.put("addresses", List.of(podIp(i, e, endpoints)));
      endpoint.put("conditions", Map.of("ready", true, "serving", true, "terminating", false));
      endpoint.put("nodeName", nodeName(node));
      endpoint.put(
          "targetRef",
          Map.of(
              "kind",
              "Pod",
              "name",
              serviceName(i) + "-7d9f8-" + e,
              "namespace",
              namespace(i),
              "uid",
              "00000000-0000-0000-0000-%012d".formatted(i * 100L + e)));
      endpoint.put("zone", zone(node));
      list.add(endpoint);
    }
    var slice = new LinkedHashMap<String, Object>();
    slice.put("addressType", "IPv4");
    slice.put("apiVersion", "discovery.k8s.io/v1");
    slice.put("endpoints", list);
    slice.put("kind", "EndpointSlice");
    slice.put(
        "metadata",
        metadata(
            serviceName(i) + "-abcde",
            namespace(i),
            Map.of(
                "endpointslice.kubernetes.io/managed-by",
                "endpointslice-controller.k8s.io",
                "kubernetes.io/service-name",
                serviceName(i))));
    slice.put("ports", List.of(Map.of("name", "http", "port", 8080, "protocol", "TCP")));
    return slice;
  }

  private static Map<String, Object> node(int n) {
    var status = new LinkedHashMap<String, Object>();
    status.put(
        "addresses",
        List.of(
            Map.of("address", "192.168." + (n / 250) + "." + (n % 250 + 1), "type", "InternalIP"),
            Map.of("address", nodeName(n), "type", "Hostname")));
    status.put("allocatable", Map.of("cpu", "4", "memory", "16Gi", "pods", "110"));
    status.put("conditions", List.of(Map.of("status", "True", "type", "Ready")));
    var node = new LinkedHashMap<String, Object>();
    node.put("apiVersion", "v1");
    node.put("kind", "Node");
    var labels = new LinkedHashMap<String, Object>();
    labels.put("kubernetes.io/hostname", nodeName(n));
    labels.put("topology.kubernetes.io/zone", zone(n));
    var metadata = metadata(nodeName(n), null, labels);
    node.put("metadata", metadata);
    node.put("spec", Map.of("podCIDR", "10.244." + n + ".0/24"));
    node.put("status", status);
    return node;
  }

  private static Map<String, Object> metadata(
      String name, String namespace, Map<String, ?> labels) {
    var metadata = new LinkedHashMap<String, Object>();
    metadata.put("creationTimestamp", "2026-11-20T10:00:00Z");
    metadata.put("labels", labels);
    metadata.put("name", name);
    if (namespace != null) {
      metadata.put("namespace", namespace);
    }
    metadata.put("resourceVersion", "4242");
    metadata.put(
        "uid", "6f1c2d3e-0000-4000-8000-" + "%012x".formatted(name.hashCode() & 0xffffffffL));
    return metadata;
  }
}
