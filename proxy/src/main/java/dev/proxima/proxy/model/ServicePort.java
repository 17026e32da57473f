package dev.proxima.proxy.model;

import dev.proxima.model.ZoneSpillOverSetting;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One port of one Service for one IP family, with everything the data plane needs. The catalog
 * builds it from the API objects: addresses and CIDRs are canonical and of this family, special
 * addresses are gone, values are within what the kernel tools accept.
 *
 * @param nodePort 0 when the Service has none
 * @param loadBalancerIps status.loadBalancer.ingress IPs of this family whose ipMode is VIP or
 *     unset
 * @param loadBalancerSourceRanges a {@link SourceRanges}, which the catalog makes once per Service
 *     and its ports share
 * @param restrictSources the Service sets loadBalancerSourceRanges: only those ranges may reach its
 *     load-balancer IPs, and none at all when the list is empty (ranges that could not be
 *     understood, or only ranges of the other family): a restriction fails closed
 * @param stickyTimeout ClientIP session affinity timeout, or null without affinity
 * @param healthCheckNodePort 0 when the Service has none
 * @param trafficDistribution the raw spec.trafficDistribution, for explain output
 * @param observeLocality the port's connections are counted per locality: as the catalog builds it,
 *     the Service opts in with the annotation {@code proxima.dev/observe-locality: "true"}; the
 *     proxy then sets it for the ports it counts ({@code --observe-locality}, under the series cap)
 * @param zoneSpillOver the Service's zone spill-over annotations, parsed once by the catalog; null
 *     for none
 */
public record ServicePort(
    ServicePortName name,
    String clusterIp,
    int port,
    int nodePort,
    List<String> externalIps,
    List<String> loadBalancerIps,
    List<String> loadBalancerSourceRanges,
    boolean restrictSources,
    Duration stickyTimeout,
    boolean internalTrafficLocal,
    boolean externalTrafficLocal,
    int healthCheckNodePort,
    String trafficDistribution,
    ServiceOrigin origin,
    boolean observeLocality,
    ZoneSpillOverSetting zoneSpillOver) {

  public ServicePort {
    zoneSpillOver = zoneSpillOver == null ? ZoneSpillOverSetting.parse(null) : zoneSpillOver;
    Objects.requireNonNull(name, "name");
    origin = origin == null ? ServiceOrigin.UNKNOWN : origin;
    Objects.requireNonNull(clusterIp, "clusterIp");
    externalIps = List.copyOf(externalIps);
    loadBalancerIps = List.copyOf(loadBalancerIps);
    var ranges = SourceRanges.of(loadBalancerSourceRanges);
    loadBalancerSourceRanges = ranges;
    restrictSources |= !ranges.isEmpty() || !ranges.unreadable().isEmpty();
  }

  public ServicePort withAddresses(List<String> externalIps, List<String> loadBalancerIps) {
    return with(externalIps, loadBalancerIps, loadBalancerSourceRanges, observeLocality);
  }

  public ServicePort withExternalIps(List<String> externalIps) {
    return with(externalIps, loadBalancerIps, loadBalancerSourceRanges, observeLocality);
  }

  /** Still restricted, whatever the list. */
  public ServicePort withSourceRanges(List<String> loadBalancerSourceRanges) {
    return with(externalIps, loadBalancerIps, loadBalancerSourceRanges, observeLocality);
  }

  private ServicePort with(
      List<String> externalIps,
      List<String> loadBalancerIps,
      List<String> sourceRanges,
      boolean observeLocality) {
    return new ServicePort(
        name,
        clusterIp,
        port,
        nodePort,
        externalIps,
        loadBalancerIps,
        sourceRanges,
        restrictSources,
        stickyTimeout,
        internalTrafficLocal,
        externalTrafficLocal,
        healthCheckNodePort,
        trafficDistribution,
        origin,
        observeLocality,
        zoneSpillOver);
  }

  public ServicePort withObserveLocality(boolean value) {
    return value == observeLocality
        ? this
        : with(externalIps, loadBalancerIps, loadBalancerSourceRanges, value);
  }

  public Protocol protocol() {
    return name.protocol();
  }

  /** A NodePort, a load-balancer IP or an external IP. */
  public boolean externallyAccessible() {
    return nodePort != 0 || !loadBalancerIps.isEmpty() || !externalIps.isEmpty();
  }

  /** Whether the Cluster endpoint list is needed (also for eTP=Local's short-circuit paths). */
  public boolean usesClusterEndpoints() {
    return !internalTrafficLocal || externallyAccessible();
  }

  /** eTP=Local alone does not count without external access. */
  public boolean usesLocalEndpoints() {
    return internalTrafficLocal || (externalTrafficLocal && externallyAccessible());
  }
}
