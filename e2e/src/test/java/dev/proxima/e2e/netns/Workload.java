package dev.proxima.e2e.netns;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One scenario's Service as the harness writes it: ports "tcp" and "udp" on 80 to the servers'
 * 8080, and the settings a scenario varies. The harness is the upstream slice writer too, so the
 * same value builds the EndpointSlice from pod states.
 */
final class Workload {
  static final String NAMESPACE = "e2e";
  static final int PORT = 80;

  final String name;
  final String clusterIp;
  String type = "ClusterIP";
  int nodePort;
  int healthCheckNodePort;
  String externalTrafficPolicy;
  String internalTrafficPolicy;
  String trafficDistribution;
  Integer affinityTimeoutSeconds;
  final Map<String, String> annotations = new HashMap<>();

  Workload(String name, String clusterIp) {
    this.name = name;
    this.clusterIp = clusterIp;
  }

  Workload distributed(String value) {
    trafficDistribution = value;
    return this;
  }

  boolean ipv6() {
    return clusterIp.contains(":");
  }

  /** A pod as an endpoint, with the conditions the harness (playing kubelet) reports. */
  record PodState(Layout.Pod pod, boolean ready, boolean serving, boolean terminating) {
    static PodState ready(Layout.Pod pod) {
      return new PodState(pod, true, true, false);
    }

    /** Shutting down but still answering, as during a graceful termination. */
    static PodState servingTerminating(Layout.Pod pod) {
      return new PodState(pod, false, true, true);
    }

    static PodState stoppedTerminating(Layout.Pod pod) {
      return new PodState(pod, false, false, true);
    }
  }

  Service service() {
    var spec =
        new ServiceBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NAMESPACE)
            .withAnnotations(annotations)
            .endMetadata()
            .withNewSpec()
            .withType(type)
            .withClusterIP(clusterIp)
            .withClusterIPs(clusterIp)
            .withIpFamilies(ipv6() ? "IPv6" : "IPv4")
            .withPorts(port("tcp", "TCP"), port("udp", "UDP"))
            .withExternalTrafficPolicy(externalTrafficPolicy)
            .withInternalTrafficPolicy(internalTrafficPolicy)
            .withTrafficDistribution(trafficDistribution)
            .withHealthCheckNodePort(healthCheckNodePort == 0 ? null : healthCheckNodePort)
            .endSpec();
    if (affinityTimeoutSeconds != null) {
      spec.editSpec()
          .withSessionAffinity("ClientIP")
          .withNewSessionAffinityConfig()
          .withNewClientIP()
          .withTimeoutSeconds(affinityTimeoutSeconds)
          .endClientIP()
          .endSessionAffinityConfig()
          .endSpec();
    }
    return spec.build();
  }

  private io.fabric8.kubernetes.api.model.ServicePort port(String portName, String protocol) {
    return new ServicePortBuilder()
        .withName(portName)
        .withProtocol(protocol)
        .withPort(PORT)
        .withTargetPort(new IntOrString(Layout.SERVER_PORT))
        .withNodePort(nodePort == 0 ? null : nodePort)
        .build();
  }

  String sliceName() {
    return name + "-slice";
  }

  EndpointSlice slice(List<PodState> pods, Instant triggerTime) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withName(sliceName())
        .withNamespace(NAMESPACE)
        .addToLabels(Labels.SERVICE_NAME, name)
        .addToLabels(Labels.MANAGED_BY, Labels.UPSTREAM_SLICE_CONTROLLER)
        .addToAnnotations(Annotations.LAST_CHANGE_TRIGGER_TIME, triggerTime.toString())
        .endMetadata()
        .withAddressType(ipv6() ? "IPv6" : "IPv4")
        .withPorts(
            new EndpointPortBuilder()
                .withName("tcp")
                .withProtocol("TCP")
                .withPort(Layout.SERVER_PORT)
                .build(),
            new EndpointPortBuilder()
                .withName("udp")
                .withProtocol("UDP")
                .withPort(Layout.SERVER_PORT)
                .build())
        .withEndpoints(pods.stream().map(this::endpoint).toList())
        .build();
  }

  private Endpoint endpoint(PodState state) {
    var pod = state.pod();
    return new EndpointBuilder()
        .withAddresses(ipv6() ? pod.ipv6() : pod.ipv4())
        .withNodeName(pod.node().name())
        .withZone(pod.node().zone())
        .withNewConditions()
        .withReady(state.ready())
        .withServing(state.serving())
        .withTerminating(state.terminating())
        .endConditions()
        .withNewTargetRef()
        .withKind("Pod")
        .withNamespace(NAMESPACE)
        .withName(pod.name())
        .endTargetRef()
        .build();
  }
}
