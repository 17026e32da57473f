package dev.proxima.e2e.demo;

import dev.proxima.e2e.demo.api.KubectlDispatcher;
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
    return new EmbeddedApiServer(server);
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
