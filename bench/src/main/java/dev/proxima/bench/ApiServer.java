package dev.proxima.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * fabric8's mock API server in CRUD mode, listening on every address of the harness namespace so
 * processes in other scratch namespaces reach it over their veth. It records every request; a drain
 * thread keeps only counts, so a long run does not hold every request body.
 */
final class ApiServer implements AutoCloseable {
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final int port;
  private final AtomicLong sliceWrites = new AtomicLong();
  private final AtomicLong statusWrites = new AtomicLong();
  private final AtomicLong watchesOpened = new AtomicLong();
  private final Thread drain;

  ApiServer() {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    java.util.logging.Logger.getLogger("io.fabric8.kubernetes.client.server.mock")
        .setLevel(java.util.logging.Level.WARNING);
    port = freePort();
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new IndexedCrudDispatcher(),
            false);
    try {
      server.init(InetAddress.getByName("0.0.0.0"), port);
    } catch (IOException e) {
      throw new HarnessError("mock API server did not start", e);
    }
    client = server.createClient();
    drain = new Thread(this::drainRequests, "request-drain");
    drain.setDaemon(true);
    drain.start();
  }

  private static int freePort() {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new HarnessError("no free port", e);
    }
  }

  private void drainRequests() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        var request = server.takeRequest(1, TimeUnit.SECONDS);
        if (request == null) {
          continue;
        }
        var method = request.getMethod();
        if ("GET".equals(method) && request.getPath().contains("watch=true")) {
          watchesOpened.incrementAndGet();
        }
        if (("PUT".equals(method) || "PATCH".equals(method))
            && request.getPath().contains("/endpointslices/")) {
          sliceWrites.incrementAndGet();
        }
        if (("PUT".equals(method) || "PATCH".equals(method))
            && request.getPath().matches("/api/v1/namespaces/[^/]+/services/[^/?]+/status.*")) {
          statusWrites.incrementAndGet();
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Updates and patches of EndpointSlices seen so far, whoever sent them. */
  long sliceWrites() {
    return sliceWrites.get();
  }

  /** Watch requests seen so far, from every client. */
  long watchesOpened() {
    return watchesOpened.get();
  }

  /** Writes of Services' status (the controller's conditions) seen so far. */
  long statusWrites() {
    return statusWrites.get();
  }

  KubernetesClient client() {
    return client;
  }

  /** A kubeconfig that reaches this server at {@code address} (the hub end of a veth). */
  Path kubeconfig(Path directory, String address) throws IOException {
    var file = directory.resolve("kubeconfig-" + address);
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: bench
          cluster: {server: "http://%s:%d"}
        users:
        - name: bench
          user: {token: not-checked}
        contexts:
        - name: bench
          context: {cluster: bench, user: bench, namespace: %s}
        current-context: bench
        """
            .formatted(address, port, SyntheticCluster.NAMESPACE));
    return file;
  }

  /** Creates (or replaces) the objects, several at a time: the mock is the bottleneck. */
  void createAll(List<? extends HasMetadata> objects) {
    if (objects.isEmpty()) {
      return;
    }
    long started = System.currentTimeMillis();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> pending = new java.util.ArrayList<>();
      int chunk = Math.max(1, objects.size() / 16);
      for (int from = 0; from < objects.size(); from += chunk) {
        var part = objects.subList(from, Math.min(objects.size(), from + chunk));
        pending.add(
            pool.submit(
                () -> {
                  for (var object : part) {
                    client.resource(object).createOr(existing -> existing.update());
                  }
                }));
      }
      for (var future : pending) {
        future.get();
      }
      Progress.log(
          "stored "
              + objects.size()
              + " "
              + objects.get(0).getKind()
              + " objects in "
              + Row.ms(System.currentTimeMillis() - started));
    } catch (Exception e) {
      throw new HarnessError("could not create objects in the mock API server", e);
    } finally {
      pool.shutdown();
    }
  }

  @Override
  public void close() {
    drain.interrupt();
    client.close();
    try {
      server.destroy();
    } catch (IllegalStateException slowShutdown) {
      // watches still closing; the server stops anyway
    }
  }
}
