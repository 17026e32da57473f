package dev.proxima.proxy.runtime;

import dev.proxima.proxy.conntrack.ConntrackCleaner;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the proxy reads from and does to the host besides loading rules: the addresses {@code
 * --nodeport-addresses} selects from, and the UDP conntrack cleanup. The CLI picks {@link
 * #thisHost()} for a node and {@link #none()} for a dry run; the runtime never asks which.
 */
public interface Host {
  /** The candidates for --nodeport-addresses; {@code cache} gives the Node's where needed. */
  List<String> addresses(ProxyCache cache);

  /**
   * Deletes UDP flows to endpoints these ports no longer use.
   *
   * @return how many deletions ran
   */
  int deleteStaleUdpFlows(IpFamily family, List<NodePlanner.PlannedPort> ports);

  /** This network namespace's interfaces and its {@code conntrack} tool. */
  static Host thisHost() {
    var conntrack = ConntrackCleaner.onThisHost();
    return new Host() {
      @Override
      public List<String> addresses(ProxyCache cache) {
        return HostAddresses.read();
      }

      @Override
      public int deleteStaleUdpFlows(IpFamily family, List<NodePlanner.PlannedPort> ports) {
        return conntrack.cleanup(family, ports);
      }
    };
  }

  /** No host to read or clean up (dry run, tests): the Node's status.addresses stand in. */
  static Host none() {
    return new Host() {
      @Override
      public List<String> addresses(ProxyCache cache) {
        return cache.nodeAddresses();
      }

      @Override
      public int deleteStaleUdpFlows(IpFamily family, List<NodePlanner.PlannedPort> ports) {
        return 0;
      }
    };
  }

  /** Fixed interface addresses and no conntrack cleanup, for tests. */
  static Host withAddresses(Supplier<List<String>> addresses) {
    return new Host() {
      @Override
      public List<String> addresses(ProxyCache cache) {
        return addresses.get();
      }

      @Override
      public int deleteStaleUdpFlows(IpFamily family, List<NodePlanner.PlannedPort> ports) {
        return 0;
      }
    };
  }
}
