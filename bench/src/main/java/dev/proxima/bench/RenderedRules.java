package dev.proxima.bench;

import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodeIps;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The IPv4 ruleset the proxy programs for the benchmark node, built in-process with the proxy's own
 * planner and assembler, exactly as a full sync and then partial syncs build it. The bare nft
 * baselines load these same scripts and deltas.
 */
public final class RenderedRules {
  private final SyntheticCluster cluster;
  private final Node node;
  private final RulesetAssembler assembler;
  private final String fullScript;
  private final boolean countsEveryPort;

  public RenderedRules(SyntheticCluster cluster) {
    this(cluster, cluster.services(), cluster.slices());
  }

  /**
   * The ruleset with locality counting {@code off} (no counters at all) or on for {@code all}
   * Service ports (the node's counters, and four counting-set elements per counted address and
   * endpoint port, no cap): the two ends of what {@code --observe-locality} costs.
   */
  public RenderedRules(SyntheticCluster cluster, ObserveLocality observe) {
    this(cluster, cluster.services(), cluster.slices(), observe);
  }

  /**
   * The ruleset of {@code services} and {@code slices} as they stand (e.g. listed from the API
   * server after churn), for the benchmark node of {@code cluster}.
   */
  public RenderedRules(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices) {
    this(cluster, services, slices, ObserveLocality.ANNOTATED);
  }

  /**
   * The ruleset of {@code services} and {@code slices} with the zone demand the proxy has read:
   * what a Service that opts in to zone spill-over is planned with.
   */
  public RenderedRules(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices,
      ZoneDemand demand) {
    this(cluster, services, slices, ObserveLocality.ANNOTATED, demand, null);
  }

  private RenderedRules(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices,
      ObserveLocality observe) {
    this(cluster, services, slices, observe, ZoneDemand.unknown(), null);
  }

  /**
   * The ruleset a running proxy programs for {@code services} and {@code slices}: the nftables
   * mode's default NodePort addresses (the Node's primary IPs among {@code hostAddresses}, the
   * addresses the proxy finds on its host) rather than the offline render's, which takes the Node's
   * status.addresses as the host's. The benchmark Node's InternalIP is not on the proxy's host, so
   * a running proxy accepts NodePorts on no address.
   */
  public static RenderedRules asRunning(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices,
      List<String> hostAddresses) {
    return new RenderedRules(
        cluster, services, slices, ObserveLocality.ANNOTATED, ZoneDemand.unknown(), hostAddresses);
  }

  private RenderedRules(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices,
      ObserveLocality observe,
      ZoneDemand demand,
      List<String> hostAddresses) {
    this.cluster = cluster;
    this.node = cluster.nodes().get(0);
    this.countsEveryPort = observe == ObserveLocality.ALL;
    var settings =
        RuleSettings.defaults()
            .withObserveLocality(observe, Locality.values().length * Math.max(1, services.size()));
    var nodeAddresses =
        node.getStatus().getAddresses().stream().map(address -> address.getAddress()).toList();
    List<String> nodePortAddresses;
    if (hostAddresses == null) {
      nodePortAddresses = settings.nodePortAddresses(IpFamily.IPV4, nodeAddresses, List.of());
    } else {
      settings = settings.withDefaultNodePortAddressesOf(ProxyMode.nftables);
      nodePortAddresses =
          settings.nodePortAddresses(IpFamily.IPV4, hostAddresses, NodeIps.primary(node));
    }
    this.assembler =
        new RulesetAssembler(settings.forFamily(IpFamily.IPV4, nodePortAddresses, List.of()));
    this.fullScript =
        assembler.replaceAll(
            plannedPorts(cluster, services, slices, demand).stream()
                .map(p -> NftPlanRenderer.rules(p, countsEveryPort))
                .toList());
  }

  /** What the renderers take: every planned Service port of the benchmark node, IPv4. */
  public static List<ServicePortRules> portRules(SyntheticCluster cluster) {
    return portRules(cluster, cluster.services(), cluster.slices());
  }

  private static List<ServicePortRules> portRules(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices) {
    return plannedPorts(cluster, services, slices, ZoneDemand.unknown()).stream()
        .map(NftPlanRenderer::rules)
        .toList();
  }

  private static List<NodePlanner.PlannedPort> plannedPorts(
      SyntheticCluster cluster,
      List<io.fabric8.kubernetes.api.model.Service> services,
      List<EndpointSlice> slices,
      ZoneDemand demand) {
    var node = cluster.nodes().get(0);
    return NodePlanner.plan(
            IpFamily.IPV4,
            SyntheticCluster.PROXY_NODE,
            node,
            null,
            services,
            slices,
            AddressPolicy.ofNode(node),
            demand)
        .ports();
  }

  /**
   * Service {@code index}'s ports once its slice is {@code slice}, planned for the benchmark node
   * as a partial sync plans them.
   */
  static List<NodePlanner.PlannedPort> plannedAfter(
      SyntheticCluster cluster, int index, EndpointSlice slice) {
    return NodePlanner.planServiceClaims(
            IpFamily.IPV4,
            SyntheticCluster.PROXY_NODE,
            cluster.nodes().get(0),
            null,
            cluster.service(index),
            List.of(slice),
            AddressPolicy.ofNode(cluster.nodes().get(0)),
            ZoneDemand.unknown())
        .ports();
  }

  public String fullScript() {
    return fullScript;
  }

  /**
   * The transaction a partial sync loads when Service {@code index}'s slice becomes {@code slice}.
   */
  public String delta(int index, EndpointSlice slice) {
    Map<ServicePortName, ServicePortRules> changes = new HashMap<>();
    plannedAfter(cluster, index, slice)
        .forEach(p -> changes.put(p.port().name(), NftPlanRenderer.rules(p, countsEveryPort)));
    return assembler
        .update(changes)
        .orElseThrow(() -> new HarnessError("the change needs a full replacement"))
        .toString();
  }
}
