package dev.proxima.testing;

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
 * fabric8's CRUD mock on a loopback port that a jar started as its own process can reach over plain
 * HTTP, and a kubeconfig naming it.
 */
public final class ReachableApiServer implements AutoCloseable {
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  public ReachableApiServer() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    try {
      server.init(InetAddress.getLoopbackAddress(), 0);
    } catch (RuntimeException failed) {
      throw new IllegalStateException("mock API server did not start", failed);
    }
    client = server.createClient();
  }

  /** A client for seeding objects. */
  public KubernetesClient client() {
    return client;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Writes a kubeconfig whose current context points at {@code server}. */
  public static Path kubeconfig(Path file, String server) {
    try {
      Files.writeString(
          file,
          """
          apiVersion: v1
          kind: Config
          clusters:
          - name: test
            cluster: {server: "%s"}
          users:
          - name: tester
            user: {token: not-checked}
          contexts:
          - name: test
            context: {cluster: test, user: tester, namespace: default}
          current-context: test
          """
              .formatted(server));
      return file;
    } catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
