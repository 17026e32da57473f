package dev.proxima.model.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the tests that start a packaged jar as its own process need around it. */
public final class ProcessFixtures {
  private ProcessFixtures() {}

  /** A TCP port free on this host right now, for a server the process binds. */
  public static int freePort() throws IOException {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /**
   * Writes {@code directory/kubeconfig} for an API server that checks no credentials.
   *
   * @param namespace the context's namespace
   */
  public static Path kubeconfig(Path directory, String server, String namespace)
      throws IOException {
    var file = directory.resolve("kubeconfig");
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
          context: {cluster: test, user: tester, namespace: %s}
        current-context: test
        """
            .formatted(server, namespace));
    return file;
  }
}
