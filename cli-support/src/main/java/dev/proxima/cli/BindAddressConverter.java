package dev.proxima.cli;

import java.net.InetSocketAddress;
import picocli.CommandLine;

/** Parses {@code host:port}, {@code [v6]:port} or {@code :port} (all interfaces). */
public final class BindAddressConverter implements CommandLine.ITypeConverter<InetSocketAddress> {
  @Override
  public InetSocketAddress convert(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw invalid(value);
    }
    var host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException notANumber) {
      throw invalid(value);
    }
    if (port < 0 || port > 65535) {
      throw invalid(value);
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  private static CommandLine.TypeConversionException invalid(String value) {
    return new CommandLine.TypeConversionException(
        "'" + value + "' is not a bind address; use host:port, e.g. 0.0.0.0:8080");
  }
}
