package dev.proxima.proxy.runtime;

import dev.proxima.proxy.conntrack.ConntrackCleaner;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.net.Inet6Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the proxy reads from and does to the host besides loading rules: the addresses {@code
 * --nodeport-addresses} selects from, and the UDP conntrack cleanup.
 */
public final class Host {
  private static final Logger log = LoggerFactory.getLogger(Host.class);

  /** Deletes UDP flows to endpoints these ports no longer use; returns how many deletions ran. */
  @FunctionalInterface
  interface UdpFlows {
    int deleteStale(
        IpFamily family,
        List<NodePlanner.PlannedPort> ports,
        List<NodePlanner.PlannedPort> previous);
  }

  private static final UdpFlows NO_CONNTRACK = (family, ports, previous) -> 0;

  private final Function<ProxyCache, List<String>> addresses;
  private final UdpFlows udpFlows;

  private Host(Function<ProxyCache, List<String>> addresses, UdpFlows udpFlows) {
    this.addresses = addresses;
    this.udpFlows = udpFlows;
  }

  public static Host thisHost() {
    return new Host(cache -> interfaceAddresses(), ConntrackCleaner.onThisHost()::cleanup);
  }

  /** No host to read or clean up (dry run, tests): the Node's status.addresses stand in. */
  public static Host none() {
    return new Host(ProxyCache::nodeAddresses, NO_CONNTRACK);
  }

  /** The candidates for --nodeport-addresses; {@code cache} gives the Node's where needed. */
  public List<String> addresses(ProxyCache cache) {
    return addresses.apply(cache);
  }

  /** Also deletes the flows to the UDP Service addresses {@code previous} had and ports lost. */
  public int deleteStaleUdpFlows(
      IpFamily family,
      List<NodePlanner.PlannedPort> ports,
      List<NodePlanner.PlannedPort> previous) {
    return udpFlows.deleteStale(family, ports, previous);
  }

  /** This host's addresses with a given UDP conntrack cleanup, for tests. */
  static Host withUdpFlows(Supplier<List<String>> addresses, UdpFlows udpFlows) {
    return new Host(cache -> addresses.get(), udpFlows);
  }

  /**
   * This network namespace's interface addresses without IPv6 zones, read every sync so that an
   * address that comes or goes is followed; empty when they cannot be read.
   */
  private static List<String> interfaceAddresses() {
    var result = new ArrayList<String>();
    try {
      for (var nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (var address : Collections.list(nic.getInetAddresses())) {
          var text = address.getHostAddress();
          int zone = text.indexOf('%');
          result.add(address instanceof Inet6Address && zone >= 0 ? text.substring(0, zone) : text);
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
}
