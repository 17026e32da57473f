package dev.proxima.proxy.testing;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDRBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Map;

/**
 * Services and EndpointSlices as the API serves them, for tests that go through the catalog: one
 * Service port {@code http} 80/TCP, its slice port {@code http} 8080/TCP.
 */
public final class ApiObjects {
  private ApiObjects() {}

  /** The ServiceCIDR object {@code kubernetes} with these ranges, as the API server creates it. */
  public static ServiceCIDR serviceCidr(String... cidrs) {
    return serviceCidr(java.util.List.of(cidrs));
  }

  public static ServiceCIDR serviceCidr(java.util.List<String> cidrs) {
    return new ServiceCIDRBuilder()
        .withNewMetadata()
        .withName("kubernetes")
        .endMetadata()
        .withNewSpec()
        .withCidrs(cidrs)
        .endSpec()
        .build();
  }

  public static ServiceSpec service(String namespace, String name, String clusterIp) {
    return new ServiceSpec(namespace, name, clusterIp);
  }

  /** A Service with one port {@code http} 80/TCP, under construction. */
  public static final class ServiceSpec {
    private final ServiceBuilder builder;

    private ServiceSpec(String namespace, String name, String clusterIp) {
      builder =
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace(namespace)
              .withName(name)
              .endMetadata()
              .withNewSpec()
              .withClusterIP(clusterIp)
              .addNewPort()
              .withName("http")
              .withPort(80)
              .withProtocol("TCP")
              .endPort()
              .endSpec();
    }

    public ServiceSpec created(String timestamp, String uid) {
      builder.editMetadata().withCreationTimestamp(timestamp).withUid(uid).endMetadata();
      return this;
    }

    /** Annotated proxima.dev/observe-locality: "true". */
    public ServiceSpec observeLocality() {
      builder.editMetadata().addToAnnotations(Annotations.OBSERVE_LOCALITY, "true").endMetadata();
      return this;
    }

    /** spec.clusterIPs, as a dual-stack (or single-stack IPv6) Service has them. */
    public ServiceSpec clusterIps(String... ips) {
      builder.editSpec().withClusterIPs(Arrays.asList(ips)).endSpec();
      return this;
    }

    public ServiceSpec externalIps(String... ips) {
      builder.editSpec().withExternalIPs(Arrays.asList(ips)).endSpec();
      return this;
    }

    public ServiceSpec loadBalancerIp(String ip) {
      builder
          .editSpec()
          .withType("LoadBalancer")
          .endSpec()
          .withNewStatus()
          .withNewLoadBalancer()
          .withIngress(new LoadBalancerIngressBuilder().withIp(ip).build())
          .endLoadBalancer()
          .endStatus();
      return this;
    }

    public ServiceSpec sourceRanges(String... ranges) {
      builder.editSpec().withLoadBalancerSourceRanges(Arrays.asList(ranges)).endSpec();
      return this;
    }

    public ServiceSpec affinity(int timeoutSeconds) {
      builder
          .editSpec()
          .withSessionAffinity("ClientIP")
          .withNewSessionAffinityConfig()
          .withNewClientIP()
          .withTimeoutSeconds(timeoutSeconds)
          .endClientIP()
          .endSessionAffinityConfig()
          .endSpec();
      return this;
    }

    public Service build() {
      return builder.build();
    }
  }

  /** One slice {@code <service>-1} with port {@code http} 8080/TCP and one endpoint per address. */
  public static EndpointSlice slice(String namespace, String service, String... addresses) {
    return sliceOnNode(namespace, service, "node-b", addresses);
  }

  /** As {@link #slice}, with every endpoint on {@code node}. */
  public static EndpointSlice sliceOnNode(
      String namespace, String service, String node, String... addresses) {
    var endpoints = new ArrayList<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint>();
    for (var address : addresses) {
      endpoints.add(
          new EndpointBuilder()
              .withAddresses(address)
              .withNodeName(node)
              .withNewConditions()
              .withReady(true)
              .endConditions()
              .build());
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(service + "-1")
        .withLabels(Map.of(Labels.SERVICE_NAME, service))
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
}
