package dev.proxima.cli;

import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFile;
import dev.proxima.model.state.StateFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where the offline commands read cluster state: a file exported with kubectl, or the cluster
 * itself through a kubeconfig (listed once, read-only). Used as an exclusive, required group.
 */
public final class StateSource {
  @Option(
      names = "--state",
      required = true,
      paramLabel = "FILE",
      description =
          "Services, EndpointSlices and Nodes as `kubectl get services,endpointslices,nodes -A -o yaml` (or -o json) prints them; any size. - reads standard input.")
  Path state;

  @Option(
      names = "--kubeconfig",
      required = true,
      paramLabel = "FILE",
      description =
          "Read Services, EndpointSlices and Nodes (the proxy's commands also ServiceCIDRs) from the cluster of this kubeconfig instead (list only: no watch, no writes).")
  Path kubeconfig;

  /**
   * Reads the state once.
   *
   * @param serviceCidrs from a live cluster, also list its ServiceCIDR objects (a state file's are
   *     always read)
   */
  public ClusterState load(boolean serviceCidrs)
      throws StateFileException, KubeconfigException, LiveClusterState.UnreachableException {
    if (state != null) {
      return readsStandardInput()
          ? StateFile.load(System.in, "standard input")
          : StateFile.load(state);
    }
    return LiveClusterState.list(Kubeconfigs.fromFile(kubeconfig), serviceCidrs);
  }

  /** The source in words, for messages: "the state file F" or "the cluster of kubeconfig F". */
  public String describe() {
    if (state != null) {
      return readsStandardInput() ? "the state on standard input" : "the state file " + state;
    }
    return "the cluster of kubeconfig " + kubeconfig;
  }

  /** The --state file ({@code -} for standard input), or null when it comes from a cluster. */
  public Path statePath() {
    return state;
  }

  /** The --kubeconfig file, or null when the state comes from a file. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  private boolean readsStandardInput() {
    return "-".equals(state.toString());
  }
}
