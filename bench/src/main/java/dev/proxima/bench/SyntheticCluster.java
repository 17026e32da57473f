package dev.proxima.bench;

import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A generated cluster of ClusterIP/TCP Services, one EndpointSlice each, spread over three zones.
 * Addresses are arithmetic on the indexes, so a benchmark can name any Service's ClusterIP or
 * endpoint without looking it up.
 *
 * @param trafficDistribution null for plain Services, or e.g. PreferSameZone for hinted ones
 */
public record SyntheticCluster(
    int serviceCount, int endpointsPerService, String trafficDistribution) {
  public static final String NAMESPACE = "bench";

  /** The node every benchmarked proxy runs as. */
  public static final String PROXY_NODE = "pb8-node";

  public static final List<String> ZONES = List.of("zone-a", "zone-b", "zone-c");
  static final int NODES_PER_ZONE = 4;

  public static String serviceName(int index) {
    return "svc-" + index;
  }

  /** 10.96.0.0/12, skipping the network address. */
  public static String clusterIp(int index) {
    return ipv4(10 << 24 | 96 << 16, index + 1);
  }

  /** Pod addresses from 10.128.0.0/10, one per (Service, endpoint). */
  public String endpointIp(int service, int endpoint) {
    return ipv4(10 << 24 | 128 << 16, service * endpointsPerService + endpoint + 1);
  }

  static String ipv4(int base, int offset) {
    int address = base + offset;
    return (address >>> 24)
        + "."
        + (address >>> 16 & 255)
        + "."
        + (address >>> 8 & 255)
        + "."
        + (address & 255);
  }

  /** The zone endpoint {@code endpoint} of every Service runs in. */
  public static String zoneOf(int endpoint) {
    return ZONES.get(endpoint % ZONES.size());
  }

  static String nodeOf(int service, int endpoint) {
    return "node-" + zoneOf(endpoint) + "-" + ((service + endpoint) % NODES_PER_ZONE);
  }

  public List<Node> nodes() {
    var nodes = new ArrayList<Node>();
    nodes.add(node(PROXY_NODE, ZONES.get(0)));
    for (var zone : ZONES) {
      for (int i = 0; i < NODES_PER_ZONE; i++) {
        nodes.add(node("node-" + zone + "-" + i, zone));
      }
    }
    return nodes;
  }

  static Node node(String name, String zone) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(Map.of(Labels.ZONE, zone))
        .endMetadata()
        .withNewStatus()
        .withAllocatable(Map.of("cpu", new Quantity("4")))
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(ipv4(10 << 24 | 250 << 16, name.hashCode() & 0xffff))
        .endAddress()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  public Service service(int index) {
    var ip = clusterIp(index);
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(serviceName(index))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withClusterIP(ip)
        .withClusterIPs(ip)
        .withIpFamilies("IPv4")
        .withSelector(Map.of("app", serviceName(index)))
        .withTrafficDistribution(trafficDistributionOf(index))
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .withNewTargetPort(8080)
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * Every tenth Service stays without a traffic distribution even in a hinted cluster, so the rules
   * for Services that use all their endpoints exist beside the hinted ones, as in a real cluster.
   */
  public String trafficDistributionOf(int index) {
    return index % 10 == 9 ? null : trafficDistribution;
  }

  public List<Service> services() {
    var all = new ArrayList<Service>(serviceCount);
    for (int i = 0; i < serviceCount; i++) {
      all.add(service(i));
    }
    return all;
  }

  /** Service {@code index}'s slice; {@code extra} endpoints are appended, without hints. */
  public EndpointSlice slice(int index, List<Endpoint> extra) {
    var endpoints = new ArrayList<Endpoint>(endpointsPerService + extra.size());
    for (int e = 0; e < endpointsPerService; e++) {
      endpoints.add(endpoint(endpointIp(index, e), zoneOf(e), nodeOf(index, e)));
    }
    endpoints.addAll(extra);
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(serviceName(index) + "-abcde")
        .withLabels(
            Map.of(
                Labels.SERVICE_NAME,
                serviceName(index),
                Labels.MANAGED_BY,
                Labels.UPSTREAM_SLICE_CONTROLLER))
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .withEndpoints(endpoints)
        .build();
  }

  public EndpointSlice slice(int index) {
    return slice(index, List.of());
  }

  public List<EndpointSlice> slices() {
    var all = new ArrayList<EndpointSlice>(serviceCount);
    for (int i = 0; i < serviceCount; i++) {
      all.add(slice(i));
    }
    return all;
  }

  /**
   * The slices as the hint controller leaves them for PreferSameZone: each endpoint hinted to its
   * own zone.
   */
  public List<EndpointSlice> hintedSlices() {
    var all = slices();
    for (var slice : all) {
      for (var endpoint : slice.getEndpoints()) {
        endpoint.setHints(
            new io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder()
                .addNewForZone(endpoint.getZone())
                .build());
      }
    }
    return all;
  }

  public static Endpoint endpoint(String ip, String zone, String node) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withZone(zone)
        .withNodeName(node)
        .withNewConditions()
        .withReady(true)
        .withServing(true)
        .withTerminating(false)
        .endConditions()
        .build();
  }

  /**
   * The same cluster with more Services or endpoints; indexes keep their addresses when only the
   * Service count changes.
   */
  public SyntheticCluster withServices(int count) {
    return new SyntheticCluster(count, endpointsPerService, trafficDistribution);
  }
}
