package dev.proxima.proxy.cli;

import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFile;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options the offline commands share: a state file and the node to plan for. */
final class StateOptions {
  @Option(
      names = "--state",
      required = true,
      paramLabel = "FILE",
      description = "Services, EndpointSlices and Nodes as `kubectl get -o yaml` prints them.")
  Path state;

  @Option(
      names = "--node",
      required = true,
      paramLabel = "NAME",
      description = "The node whose proxy to plan for.")
  String node;

  @Mixin ServiceProxyNameOption serviceProxyName;

  private ClusterState cluster;

  /** The node's addresses from its status in the state file, for --nodeport-addresses. */
  List<String> nodeAddresses() {
    return cluster.nodes().stream()
        .filter(n -> node.equals(n.getMetadata().getName()))
        .filter(n -> n.getStatus() != null && n.getStatus().getAddresses() != null)
        .flatMap(n -> n.getStatus().getAddresses().stream())
        .map(address -> address.getAddress())
        .toList();
  }

  /** Loads the state and plans every family the node's Services use, IPv4 first. */
  List<NodePlanner.FamilyPlan> plans(List<String> notes) throws StateFileException {
    cluster = StateFile.load(state);
    cluster.ignored().forEach(notes::add);
    Node self =
        cluster.nodes().stream()
            .filter(n -> node.equals(n.getMetadata().getName()))
            .findFirst()
            .orElse(null);
    if (self == null) {
      notes.add(
          "Node "
              + node
              + " is not in the state file: no zone is known, so zone hints cannot match");
    }
    var plans = new ArrayList<NodePlanner.FamilyPlan>();
    for (var family : IpFamily.values()) {
      var plan =
          NodePlanner.plan(
              family,
              node,
              self,
              serviceProxyName.value,
              cluster.services(),
              cluster.endpointSlices());
      if (family == IpFamily.IPV4 || !plan.ports().isEmpty()) {
        plans.add(plan);
      }
    }
    return plans;
  }
}
