package dev.proxima.testing;

import java.io.IOException;
import java.net.ServerSocket;

/**
 * Free ports for the servers a jar started as its own process binds (its kubeconfig: {@link
 * ReachableApiServer#kubeconfig}).
 */
public final class ProcessFixtures {
  private ProcessFixtures() {}

  /** A TCP port free on this host right now, for a server the process binds. */
  public static int freePort() throws IOException {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
