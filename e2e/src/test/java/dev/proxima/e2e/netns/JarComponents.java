package dev.proxima.e2e.netns;

import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The packaged jars as processes: the controller in the root namespace on loopback ports, each
 * proxy inside its node's namespace, both with fast sync periods and a kubeconfig.
 */
final class JarComponents implements Components {
  static final int HEALTHZ_PORT = 10256;
  static final int METRICS_PORT = 10249;

  private final Wiring wiring;
  private int controllerProbePort;

  JarComponents(Wiring wiring) {
    this.wiring = wiring;
  }

  @Override
  public Process startController(Path log) {
    int metrics = freePort();
    controllerProbePort = freePort();
    return JavaProcesses.start(
        null,
        JavaProcesses.jar("proxima.controller.jar", "../controller/target/proxima-controller.jar"),
        List.of(
            "run",
            "--kubeconfig=" + wiring.controllerKubeconfig(),
            "--no-leader-elect",
            // The workloads' slices carry kube-controller-manager's managed-by label, as on a real
            // cluster, but no kube-controller-manager runs here to write Auto hints on them.
            "--slices=all",
            "--metrics-bind-address=127.0.0.1:" + metrics,
            "--health-probe-bind-address=127.0.0.1:" + controllerProbePort),
        log);
  }

  @Override
  public int controllerStatus(String path) {
    return JavaProcesses.status("http://127.0.0.1:" + controllerProbePort + path);
  }

  @Override
  public Process startProxy(Layout.Node node, ProxyMode mode, Path log) {
    return JavaProcesses.start(
        node.namespace(),
        JavaProcesses.jar("proxima.proxy.jar", "../proxy/target/proxima-proxy.jar"),
        List.of(
            "run",
            "--node-name=" + node.name(),
            "--kubeconfig=" + wiring.nodeKubeconfig(),
            "--mode=" + mode.name(),
            "--min-sync-period=100ms",
            "--sync-period=5s",
            "--cluster-cidr=" + Layout.CLUSTER_CIDRS,
            "--healthz-bind-address=0.0.0.0:" + HEALTHZ_PORT,
            "--metrics-bind-address=127.0.0.1:" + METRICS_PORT),
        log);
  }

  /** The jar in the node's namespace, where the node's proxy serves explain on loopback. */
  @Override
  public HostTools.Result explainLive(Layout.Node node, String... args) {
    var command = new ArrayList<>(List.of("explain", "--live"));
    command.addAll(List.of(args));
    return JavaProcesses.run(
        node.namespace(),
        JavaProcesses.jar("proxima.proxy.jar", "../proxy/target/proxima-proxy.jar"),
        command,
        wiring.workDir());
  }

  private static int freePort() {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
