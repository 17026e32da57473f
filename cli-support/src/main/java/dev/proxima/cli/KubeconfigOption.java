package dev.proxima.cli;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a binary finds its cluster: an explicit kubeconfig, or the usual search. */
public final class KubeconfigOption {
  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:PROXIMA_KUBECONFIG}",
      paramLabel = "FILE",
      description =
          "Kubeconfig file; default: in a pod its service account, else $KUBECONFIG, else ~/.kube/config.")
  Path kubeconfig;

  /**
   * The client configuration.
   *
   * @throws KubeconfigException when the file is missing, unreadable, malformed or names no server,
   *     or when there is no kubeconfig outside a pod
   */
  public Config clientConfig() throws KubeconfigException {
    var config = Kubeconfigs.ofThisProcess().resolve(kubeconfig);
    // fabric8 retries a failed request 10 times (about 20 s) before anyone hears of it. The
    // informers back off by themselves (1 s doubling to 32 s) and log each attempt, and the
    // controller's queue retries failed writes, so a hidden retry only hides an outage.
    config.setRequestRetryBackoffLimit(0);
    return config;
  }
}
