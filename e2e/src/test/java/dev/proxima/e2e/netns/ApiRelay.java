package dev.proxima.e2e.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Carries the nodes' API connections from the fabric to the API server on the test JVM's loopback,
 * through a Unix socket: a file is visible from every network namespace, so the root namespace
 * needs no address, link or route, and runs with different prefixes never share an address.
 */
final class ApiRelay implements AutoCloseable {
  private final Process rootSide;
  private final Process fabricSide;

  private ApiRelay(Process rootSide, Process fabricSide) {
    this.rootSide = rootSide;
    this.fabricSide = fabricSide;
  }

  /** From {@link Layout#API_ADDRESS}:{@link Layout#API_PORT} in the fabric to loopback:port. */
  static ApiRelay start(String fabricNamespace, int apiServerPort, Path socket) {
    var root =
        start(
            List.of(
                "socat",
                "UNIX-LISTEN:" + socket + ",fork,unlink-early",
                "TCP4:127.0.0.1:" + apiServerPort));
    var fabric =
        start(
            List.of(
                "ip",
                "netns",
                "exec",
                fabricNamespace,
                "socat",
                "TCP4-LISTEN:"
                    + Layout.API_PORT
                    + ",bind="
                    + Layout.API_ADDRESS
                    + ",fork,reuseaddr",
                "UNIX-CONNECT:" + socket));
    return new ApiRelay(root, fabric);
  }

  /** A relay process, its output discarded. */
  static Process start(List<String> command) {
    try {
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  static String url() {
    return "http://" + Layout.API_ADDRESS + ":" + Layout.API_PORT;
  }

  @Override
  public void close() {
    fabricSide.destroyForcibly();
    rootSide.destroyForcibly();
  }
}
