package dev.proxima.cli;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a binary finds its cluster: an explicit kubeconfig, or fabric8's usual search. */
public final class KubeconfigOption {
  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:PROXIMA_KUBECONFIG}",
      description =
          "Kubeconfig file; default: in-cluster config, then $KUBECONFIG, then ~/.kube/config.")
  Path kubeconfig;

  /** The client configuration; an unreadable kubeconfig is an error that names the file. */
  public Config clientConfig() throws IOException {
    if (kubeconfig == null) {
      return Config.autoConfigure(null);
    }
    return Config.fromKubeconfig(Files.readString(kubeconfig));
  }
}
