package dev.proxima.e2e.netns;

import static org.awaitility.Awaitility.await;

import dev.proxima.model.Labels;
import dev.proxima.model.ZoneDemand;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the harness writes to the API server in the roles of kubelet and the upstream slice writer:
 * the Nodes, and each scenario's Services and EndpointSlices, with addresses allocated per run.
 */
final class ClusterObjects {
  /** Where the controller, run without --leader-election-namespace, publishes the zone demand. */
  static final String CONTROLLER_NAMESPACE = "proxima-system";

  private final KubernetesClient kube;
  private final List<Workload> workloads = new ArrayList<>();
  private int nextService = 10;
  private int nextNodePort = 30010;

  ClusterObjects(KubernetesClient kube) {
    this.kube = kube;
  }

  /**
   * Ready Nodes with zone labels, allocatable CPU and pod ranges, as kubelet and the node IPAM
   * controller would leave them.
   */
  void registerNodes(List<Layout.Node> nodes) {
    for (var node : nodes) {
      kube.nodes().resource(nodeObject(node)).create();
    }
  }

  /** Sets the Node's allocatable CPU, as kubelet reports a resized node. */
  void setAllocatableCpu(Layout.Node node, int cpu) {
    kube.nodes()
        .withName(node.name())
        .edit(
            existing -> {
              existing.getStatus().getAllocatable().put("cpu", new Quantity(String.valueOf(cpu)));
              return existing;
            });
  }

  /**
   * The zone demand the controller publishes, as its data (zone to share); empty while there is
   * none. The controller runs with its default namespace, so the object is there.
   */
  Map<String, String> zoneDemand() {
    var published =
        kube.configMaps()
            .inNamespace(CONTROLLER_NAMESPACE)
            .withName(ZoneDemand.CONFIG_MAP_NAME)
            .get();
    return published == null || published.getData() == null ? Map.of() : published.getData();
  }

  private static Node nodeObject(Layout.Node node) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(node.name())
        .addToLabels(Labels.ZONE, node.zone())
        .addToLabels("kubernetes.io/hostname", node.name())
        .endMetadata()
        .withNewSpec()
        .withPodCIDRs(node.podCidrs())
        .withPodCIDR(node.podCidrs().get(0))
        .endSpec()
        .withNewStatus()
        .addToAllocatable("cpu", new Quantity(String.valueOf(node.cpu())))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(node.ipv4())
        .endAddress()
        .endStatus()
        .build();
  }

  Workload workload(String name) {
    return track(new Workload(name, "10.96.0." + nextService++));
  }

  Workload workloadV6(String name) {
    return track(new Workload(name, "fd06:96::" + Integer.toHexString(nextService++)));
  }

  Workload nodePortWorkload(String name) {
    var workload = workload(name);
    workload.type = "NodePort";
    workload.nodePort = nextNodePort++;
    workload.healthCheckNodePort = nextNodePort++;
    return workload;
  }

  private Workload track(Workload workload) {
    workloads.add(workload);
    return workload;
  }

  /** Creates or replaces the Service. */
  void writeService(Workload workload) {
    var service = workload.service();
    var existing = kube.services().inNamespace(Workload.NAMESPACE).withName(workload.name).get();
    if (existing == null) {
      kube.resource(service).create();
    } else {
      service.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
      kube.resource(service).update();
    }
  }

  void writeSlice(Workload workload, List<Workload.PodState> pods) {
    writeSlice(kube, workload, pods);
  }

  /** Writes the slice with a fresh trigger time, retrying when the controller raced it (409). */
  static void writeSlice(KubernetesClient client, Workload workload, List<Workload.PodState> pods) {
    var slices = client.discovery().v1().endpointSlices().inNamespace(Workload.NAMESPACE);
    await("slice of " + workload.name + " written")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .ignoreException(KubernetesClientException.class)
        .until(
            () -> {
              var slice = workload.slice(pods, Instant.now());
              var existing = slices.withName(workload.sliceName()).get();
              if (existing == null) {
                slices.resource(slice).create();
              } else {
                slice.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
                slices.resource(slice).update();
              }
              return true;
            });
  }

  EndpointSlice slice(Workload workload) {
    return kube.discovery()
        .v1()
        .endpointSlices()
        .inNamespace(Workload.NAMESPACE)
        .withName(workload.sliceName())
        .get();
  }

  /** The Service's condition of {@code type} as the controller last wrote it, or null. */
  Condition condition(Workload workload, String type) {
    var service = kube.services().inNamespace(Workload.NAMESPACE).withName(workload.name).get();
    if (service == null || service.getStatus() == null) {
      return null;
    }
    return service.getStatus().getConditions().stream()
        .filter(condition -> type.equals(condition.getType()))
        .findFirst()
        .orElse(null);
  }

  /** Waits until the controller has given every endpoint of the slice a hint. */
  void awaitHints(Workload workload) {
    await("hints on " + workload.sliceName())
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              var slice = slice(workload);
              return slice != null
                  && !slice.getEndpoints().isEmpty()
                  && slice.getEndpoints().stream().allMatch(e -> e.getHints() != null);
            });
  }

  /** Deletes the Services and slices of the scenario that just ended; returns its workloads. */
  List<Workload> deleteWorkloads() {
    var deleted = List.copyOf(workloads);
    for (var workload : deleted) {
      kube.discovery()
          .v1()
          .endpointSlices()
          .inNamespace(Workload.NAMESPACE)
          .withName(workload.sliceName())
          .delete();
      kube.services().inNamespace(Workload.NAMESPACE).withName(workload.name).delete();
    }
    workloads.clear();
    return deleted;
  }

  /** The current scenario's slices: endpoints, readiness and hints, one line each. */
  String describeSlices() {
    var text = new StringBuilder();
    for (var workload : workloads) {
      var slice = slice(workload);
      text.append("slice ")
          .append(workload.sliceName())
          .append(": ")
          .append(slice == null ? "none" : describe(slice))
          .append('\n');
    }
    return text.toString();
  }

  private static String describe(EndpointSlice slice) {
    return slice.getEndpoints().stream()
        .map(
            e ->
                e.getTargetRef().getName()
                    + (Boolean.TRUE.equals(e.getConditions().getReady()) ? "" : "(not ready)")
                    + (e.getHints() == null ? "" : " hints=" + e.getHints()))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
