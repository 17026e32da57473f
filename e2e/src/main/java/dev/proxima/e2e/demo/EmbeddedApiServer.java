package dev.proxima.e2e.demo;

import dev.proxima.e2e.demo.api.KubectlDispatcher;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;

/**
 * An in-process API server: fabric8's mock server in CRUD mode, bound to loopback on a free port,
 * behind {@link KubectlDispatcher} so that the real kubectl can use it too. It stores and watches
 * objects like an API server but runs no controllers behind them.
 */
public final class EmbeddedApiServer implements AutoCloseable {
  // The mock server logs every request through java.util.logging; kept quiet so the demo's own
  // output stays readable. A static reference stops the logger (and its level) being collected.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private final KubernetesMockServer server;

  private EmbeddedApiServer(KubernetesMockServer server) {
    this.server = server;
  }

  public static EmbeddedApiServer start() {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    var server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubectlDispatcher(new KubernetesCrudDispatcher()),
            false);
    try {
      server.init(InetAddress.getLoopbackAddress(), 0);
    } catch (RuntimeException failure) {
      throw new UncheckedIOException(
          new IOException("could not start the embedded API server", failure));
    }
    var started = new EmbeddedApiServer(server);
    started.createBuiltIns();
    return started;
  }

  /** The namespaces every cluster has, the demo's own, and the API server's default/kubernetes. */
  static final List<String> NAMESPACES =
      List.of("default", "kube-system", "kube-public", "kube-node-lease", "proxima-system", "demo");

  /**
   * What a real API server creates for itself: the namespaces (so {@code kubectl get ns} lists
   * them) and the {@code default/kubernetes} Service. The demo's API server cannot be reached
   * through that Service, so it has no EndpointSlice, and the proxies say its traffic is rejected.
   */
  private void createBuiltIns() {
    try (var client = client()) {
      for (var name : NAMESPACES) {
        client
            .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
            .create();
      }
      client
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withName("kubernetes")
                  .withNamespace("default")
                  .addToLabels("component", "apiserver")
                  .addToLabels("provider", "kubernetes")
                  .endMetadata()
                  .withNewSpec()
                  .withType("ClusterIP")
                  .withClusterIP("10.96.0.1")
                  .withClusterIPs("10.96.0.1")
                  .addNewPort()
                  .withName("https")
                  .withPort(443)
                  .withProtocol("TCP")
                  .withNewTargetPort(6443)
                  .endPort()
                  .endSpec()
                  .build())
          .create();
    }
  }

  /** A new client for this server; the caller closes it. */
  public KubernetesClient client() {
    return server.createClient();
  }

  public String url() {
    return "http://" + server.getHostName() + ":" + server.getPort();
  }

  /** Writes a kubeconfig for kubectl (namespace demo, plain HTTP, no credentials checked). */
  public void writeKubeconfig(Path file) throws IOException {
    Files.writeString(
        file,
        """
        # Written by ./demo.sh --serve: the embedded API server, valid while the demo runs.
        apiVersion: v1
        kind: Config
        clusters:
        - name: proxima-demo
          cluster:
            server: %s
        users:
        - name: proxima-demo
          user:
            token: demo
        contexts:
        - name: proxima-demo
          context:
            cluster: proxima-demo
            user: proxima-demo
            namespace: demo
        current-context: proxima-demo
        """
            .formatted(url()));
  }

  @Override
  public void close() {
    try {
      server.destroy();
    } catch (IllegalStateException slowShutdown) {
      // The mock waits a few seconds for watch connections to finish closing and gives up on a
      // busy machine; the server is stopping either way and nothing is left to clean up.
      MOCK_LOG.fine("embedded API server shut down with connections still closing");
    }
  }
}
