package dev.proxima.e2e.netns;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The CRUD mock API server on loopback ({@link ApiRelay} brings the nodes to it). The objects live
 * in the dispatcher, not in the listener, so the server can be stopped and started again on the
 * same port with everything still stored, and a second listener on loopback (the "side door") can
 * change objects while the one the components use is down.
 */
final class ApiServer implements AutoCloseable {
  // The mock logs every request through java.util.logging; a static reference keeps the level.
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private final KubernetesCrudDispatcher store = new KubernetesCrudDispatcher();
  private final InetAddress address;
  private final int port;
  private KubernetesMockServer listener;

  private ApiServer(InetAddress address) {
    MOCK_LOG.setLevel(Level.WARNING);
    this.address = address;
    this.listener = open(address, 0);
    this.port = listener.getPort();
  }

  static ApiServer start() {
    return new ApiServer(InetAddress.getLoopbackAddress());
  }

  int port() {
    return port;
  }

  private KubernetesMockServer open(InetAddress on, int onPort) {
    var server =
        new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), store, false);
    server.init(on, onPort);
    return server;
  }

  String url() {
    return "http://" + address.getHostAddress() + ":" + port;
  }

  /** A client of the listener the components use; it works again once a stopped server starts. */
  KubernetesClient client() {
    return clientOf(url());
  }

  private static KubernetesClient clientOf(String url) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url)
            .withNamespace("default")
            .withRequestRetryBackoffLimit(0)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  boolean running() {
    return listener != null;
  }

  /** Closes the listener: open watches break and new connections are refused. */
  void stop() {
    if (listener != null) {
      close(listener);
      listener = null;
    }
  }

  void restart() {
    if (listener == null) {
      listener = open(address, port);
    }
  }

  /** Runs {@code change} against the stored objects through a loopback listener of its own. */
  void changeWhileDown(Consumer<KubernetesClient> change) {
    var sideDoor = open(InetAddress.getLoopbackAddress(), 0);
    try (var client = clientOf("http://127.0.0.1:" + sideDoor.getPort())) {
      change.accept(client);
    } finally {
      close(sideDoor);
    }
  }

  private static void close(KubernetesMockServer server) {
    try {
      server.destroy();
    } catch (IllegalStateException slowShutdown) {
      // The mock gives up waiting for watch connections to close on a busy machine; the listener
      // is closed either way.
      MOCK_LOG.fine("mock API server stopped with connections still closing");
    }
  }

  @Override
  public void close() {
    stop();
  }
}
