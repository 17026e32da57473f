package dev.proxima.proxy.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.model.ObjectKey;
import java.net.InetSocketAddress;
import picocli.CommandLine.Option;

/** {@code explain --live}: ask the proxy running on this node instead of reading a state. */
final class LiveExplainOptions {
  @Option(
      names = "--live",
      required = true,
      description =
          "Ask the proxy running on this node (e.g. kubectl exec into its pod) for its current"
              + " plan and sync state, on its loopback explain port.")
  boolean live;

  @Option(
      names = "--service",
      paramLabel = "NAMESPACE/NAME",
      description = "Only this Service (with --live).")
  String service;

  @Option(
      names = "--explain-port",
      paramLabel = "PORT",
      description =
          "The port of the proxy's --explain-bind-address (default: the port of"
              + " $PROXIMA_EXPLAIN_BIND_ADDRESS, which the proxy's pod sets when it moves it, else "
              + ExplainCommand.DEFAULT_PORT
              + ").")
  Integer port;

  /**
   * The host and port of {@code PROXIMA_EXPLAIN_BIND_ADDRESS} when set (a {@code kubectl exec}
   * shell has the proxy container's environment), --explain-port over its port.
   */
  InetSocketAddress address(String environmentValue) {
    var host = "127.0.0.1";
    int envPort = ExplainCommand.DEFAULT_PORT;
    if (environmentValue != null && !environmentValue.isBlank()) {
      InetSocketAddress fromEnvironment;
      try {
        fromEnvironment = new BindAddressConverter().convert(environmentValue.strip());
      } catch (RuntimeException invalid) {
        throw new IllegalArgumentException(
            "PROXIMA_EXPLAIN_BIND_ADDRESS=" + environmentValue + " is not host:port");
      }
      if (!fromEnvironment.isUnresolved() && fromEnvironment.getAddress().isLoopbackAddress()) {
        host = fromEnvironment.getAddress().getHostAddress();
      }
      envPort = fromEnvironment.getPort();
    }
    int chosen = port != null ? port : envPort;
    if (chosen < 1 || chosen > 65535) {
      throw new IllegalArgumentException(
          port != null
              ? "--explain-port " + port + " is not a port (1-65535)"
              : "the proxy's explain port is off (PROXIMA_EXPLAIN_BIND_ADDRESS="
                  + environmentValue
                  + "); give --explain-port if it listens elsewhere");
    }
    return new InetSocketAddress(host, chosen);
  }

  ObjectKey serviceKey() {
    if (service == null) {
      return null;
    }
    try {
      return ObjectKey.parse(service);
    } catch (IllegalArgumentException invalid) {
      throw new IllegalArgumentException("--service takes NAMESPACE/NAME, not " + service);
    }
  }
}
