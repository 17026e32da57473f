package dev.proxima.proxy.cli;

import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.cli.StateSource;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NodePlanner;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The options the offline commands share: where the state comes from and the node to plan for. A
 * mixin of {@code render}, an argument group of {@code explain} (whose other group is {@code
 * --live}), so it holds no mixin itself.
 */
final class StateOptions {
  private static final int NODES_NAMED = 20;

  @ArgGroup(exclusive = true, multiplicity = "1")
  StateSource source;

  @Option(
      names = "--node",
      required = true,
      paramLabel = "NAME",
      description = "The node whose proxy to plan for; it must be one of the state's Nodes.")
  String node;

  @Option(
      names = "--zone-demand",
      split = ",",
      paramLabel = "ZONE=SHARE",
      description =
          "Each zone's share of the demand, as the controller publishes it in the"
              + " proxima-zone-demand ConfigMap (kubectl -n proxima-system get configmap"
              + " proxima-zone-demand -o jsonpath='{.data}'), for zone spill-over; without it the"
              + " demand is unknown.")
  Map<String, String> zoneDemand;

  private ClusterState cluster;

  /** Once {@link #plans} loaded the state. */
  Node self;

  /**
   * A warning when the state has Services but no EndpointSlice at all (an export that left them
   * out), or null: every Service would otherwise show {@code no endpoints} without saying why.
   */
  String missingSlicesWarning() {
    if (cluster.services().isEmpty() || !cluster.endpointSlices().isEmpty()) {
      return null;
    }
    return source.describe()
        + " has "
        + cluster.services().size()
        + " Services but no EndpointSlices, so every Service shows no endpoints: export them too"
        + " (kubectl get services,endpointslices,nodes -A -o yaml)";
  }

  List<String> serviceCidrs() {
    return cluster.serviceCidrs().stream()
        .filter(object -> object.getSpec() != null && object.getSpec().getCidrs() != null)
        .flatMap(object -> object.getSpec().getCidrs().stream())
        .distinct()
        .toList();
  }

  /**
   * Every family the node's Services use, IPv4 first. A node that is not one of the state's Nodes
   * is an error: a typo would otherwise print a plausible plan for a node that does not exist.
   */
  List<NodePlanner.FamilyPlan> plans(List<String> notes, String serviceProxyName)
      throws StateFileException, KubeconfigException, LiveClusterState.UnreachableException {
    cluster = source.load(true);
    cluster.ignored().forEach(notes::add);
    self =
        cluster.nodes().stream()
            .filter(n -> node.equals(n.getMetadata().getName()))
            .findFirst()
            .orElseThrow(() -> new StateFileException(unknownNode(), null));
    var demand = ZoneDemand.parse(zoneDemand);
    demand.problems().forEach(problem -> notes.add("--zone-demand: " + problem));
    var plans = new ArrayList<NodePlanner.FamilyPlan>();
    for (var family : IpFamily.values()) {
      var plan =
          NodePlanner.plan(
              family,
              node,
              self,
              serviceProxyName,
              cluster.services(),
              cluster.endpointSlices(),
              AddressPolicy.ofNode(self),
              demand.demand());
      if (family == IpFamily.IPV4 || !plan.ports().isEmpty()) {
        plans.add(plan);
      }
    }
    return plans;
  }

  private String unknownNode() {
    var names = cluster.nodes().stream().map(n -> n.getMetadata().getName()).sorted().toList();
    if (names.isEmpty()) {
      return "node "
          + node
          + " is not in "
          + source.describe()
          + ", which has no Nodes (export them too: kubectl get services,endpointslices,nodes -A -o yaml)";
    }
    var known = String.join(", ", names.subList(0, Math.min(names.size(), NODES_NAMED)));
    if (names.size() > NODES_NAMED) {
      known += " and " + (names.size() - NODES_NAMED) + " more";
    }
    return "node " + node + " is not in " + source.describe() + "; its nodes: " + known;
  }
}
