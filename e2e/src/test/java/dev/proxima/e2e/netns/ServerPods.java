package dev.proxima.e2e.netns;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The server pods' processes: four socat listeners per pod (TCP and UDP, IPv4 and IPv6) on {@link
 * Layout#SERVER_PORT}, answering every request line with "pod-name client-address".
 */
final class ServerPods implements AutoCloseable {
  // UDP-LISTEN gives each client socket a child of its own; a RECVFROM child would share the
  // listening socket and swallow other clients' datagrams.
  private static final String ANSWER =
      "SYSTEM:while read -r l; do echo \"$POD $SOCAT_PEERADDR\"; done";
  private static final int PORT = Layout.SERVER_PORT;
  private static final List<List<String>> LISTENERS =
      List.of(
          List.of("TCP4-LISTEN:" + PORT + ",fork,reuseaddr", ANSWER),
          List.of("-T2", "UDP4-LISTEN:" + PORT + ",fork,reuseaddr", ANSWER),
          List.of("TCP6-LISTEN:" + PORT + ",fork,reuseaddr,ipv6only=1", ANSWER),
          List.of("-T2", "UDP6-LISTEN:" + PORT + ",fork,reuseaddr,ipv6only=1", ANSWER));

  private final List<Process> processes = new ArrayList<>();

  static ServerPods start(Layout layout) {
    var servers = new ServerPods();
    for (var pod : layout.pods()) {
      if (pod.isServer()) {
        LISTENERS.forEach(listener -> servers.start(pod, listener));
      }
    }
    return servers;
  }

  private void start(Layout.Pod pod, List<String> listener) {
    var command = new ArrayList<>(List.of("ip", "netns", "exec", pod.namespace(), "socat"));
    command.addAll(listener);
    var builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("POD", pod.name());
    try {
      processes.add(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until each server answers its node's client directly. */
  static void awaitListening(Layout layout, Clients clients) {
    for (var pod : layout.pods()) {
      if (!pod.isServer()) {
        continue;
      }
      var client = layout.client(pod.node());
      await("server " + pod.name() + " listening")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  clients
                      .probe(client.name(), client.namespace(), "tcp", pod.ipv4(), PORT, 1)
                      .servers()
                      .contains(pod.name()));
    }
  }

  /** The listeners; their per-connection children go with the namespaces. */
  @Override
  public void close() {
    processes.forEach(Process::destroyForcibly);
  }
}
