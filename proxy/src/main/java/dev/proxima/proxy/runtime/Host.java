package dev.proxima.proxy.runtime;

import dev.proxima.proxy.conntrack.ConntrackCleaner;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the proxy reads from and does to the host besides loading rules: the addresses {@code
 * --nodeport-addresses} selects from, and the UDP conntrack cleanup. The CLI picks {@link
 * #thisHost()} for a node and {@link #none()} for a dry run; the runtime never asks which.
 */
public final class Host {
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
    return new Host(cache -> HostAddresses.read(), ConntrackCleaner.onThisHost()::cleanup);
  }

  /** No host to read or clean up (dry run, tests): the Node's status.addresses stand in. */
  public static Host none() {
    return new Host(ProxyCache::nodeAddresses, NO_CONNTRACK);
  }

  /** Fixed interface addresses and no conntrack cleanup, for tests. */
  public static Host withAddresses(Supplier<List<String>> addresses) {
    return new Host(cache -> addresses.get(), NO_CONNTRACK);
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
}
