package dev.proxima.proxy.runtime;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The addresses of this network namespace's interfaces, the candidates for {@code
 * --nodeport-addresses} as kube-proxy reads them. With hostNetwork that is the node's. Read at
 * every sync, so an address that comes or goes is followed at the next one (at the latest after
 * {@code --sync-period}).
 */
final class HostAddresses {
  private static final Logger log = LoggerFactory.getLogger(HostAddresses.class);

  private HostAddresses() {}

  /** Every interface's addresses, without IPv6 zone suffixes; empty when they cannot be read. */
  static List<String> read() {
    var result = new ArrayList<String>();
    try {
      for (var nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (var address : Collections.list(nic.getInetAddresses())) {
          result.add(literal(address));
        }
      }
    } catch (SocketException | RuntimeException unreadable) {
      // No candidates: a restricted --nodeport-addresses then fails closed, with its warning.
      log.atWarn()
          .addKeyValue("error", String.valueOf(unreadable))
          .log("Cannot read the host's interface addresses for --nodeport-addresses");
      return List.of();
    }
    return List.copyOf(result);
  }

  private static String literal(InetAddress address) {
    var text = address.getHostAddress();
    int zone = text.indexOf('%');
    if (address instanceof Inet6Address && zone >= 0) {
      text = text.substring(0, zone);
    }
    return text;
  }
}
