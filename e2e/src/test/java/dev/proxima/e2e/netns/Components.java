package dev.proxima.e2e.netns;

import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Path;

/**
 * How a {@link NetnsCluster} runs its controller and proxies: the packaged jars as processes
 * ({@link JarComponents}), or the images as containers the way the manifests say ({@link
 * ContainerComponents}).
 */
interface Components extends AutoCloseable {
  /** What the cluster has built when it starts the components. */
  record Wiring(
      Layout layout,
      Path workDir,
      Path nodeKubeconfig,
      Path controllerKubeconfig,
      Path apiSocket,
      Clients clients) {}

  Process startController(Path log);

  /** The HTTP status of {@code path} on the controller's health port, or -1 if none answers. */
  int controllerStatus(String path);

  Process startProxy(Layout.Node node, ProxyMode mode, Path log);

  /**
   * {@code proxima-proxy explain --live ARGS} on the node, as an operator runs it next to the
   * node's proxy: its exit code and output.
   */
  HostTools.Result explainLive(Layout.Node node, String... args);

  @Override
  default void close() {}
}
