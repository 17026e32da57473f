package dev.proxima.proxy.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One port of one Service for one IP family, with everything the data plane needs. Addresses of the
 * other family are already filtered out.
 *
 * @param clusterIp the ClusterIP of this family
 * @param nodePort 0 when the Service has none
 * @param externalIps spec.externalIPs of this family
 * @param loadBalancerIps status.loadBalancer.ingress IPs of this family whose ipMode is VIP or
 *     unset
 * @param loadBalancerSourceRanges CIDRs allowed to reach the load-balancer IPs; empty allows all
 * @param stickyTimeout ClientIP session affinity timeout, or null without affinity
 * @param internalTrafficLocal internalTrafficPolicy: Local
 * @param externalTrafficLocal externalTrafficPolicy: Local
 * @param healthCheckNodePort 0 when the Service has none
 * @param trafficDistribution the raw spec.trafficDistribution, for explain output
 */
public record ServicePort(
    ServicePortName name,
    String clusterIp,
    int port,
    int nodePort,
    List<String> externalIps,
    List<String> loadBalancerIps,
    List<String> loadBalancerSourceRanges,
    Duration stickyTimeout,
    boolean internalTrafficLocal,
    boolean externalTrafficLocal,
    int healthCheckNodePort,
    String trafficDistribution) {

  public ServicePort {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(clusterIp, "clusterIp");
    externalIps = List.copyOf(externalIps);
    loadBalancerIps = List.copyOf(loadBalancerIps);
    loadBalancerSourceRanges = List.copyOf(loadBalancerSourceRanges);
  }

  public Protocol protocol() {
    return name.protocol();
  }

  /**
   * Reachable from outside the cluster network: a NodePort, a load-balancer IP or an external IP.
   */
  public boolean externallyAccessible() {
    return nodePort != 0 || !loadBalancerIps.isEmpty() || !externalIps.isEmpty();
  }

  /** Whether the Cluster endpoint list is needed (also for eTP=Local's short-circuit paths). */
  public boolean usesClusterEndpoints() {
    return !internalTrafficLocal || externallyAccessible();
  }

  /**
   * Whether the Local endpoint list is needed; eTP=Local alone does not count without external
   * access.
   */
  public boolean usesLocalEndpoints() {
    return internalTrafficLocal || (externalTrafficLocal && externallyAccessible());
  }
}
