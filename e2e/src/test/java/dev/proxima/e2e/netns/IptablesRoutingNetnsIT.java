package dev.proxima.e2e.netns;

import dev.proxima.proxy.model.ProxyMode;

/** Scenario 15: the same routing scenarios with the proxies in iptables mode. */
class IptablesRoutingNetnsIT extends RoutingScenarios {
  @Override
  ProxyMode mode() {
    return ProxyMode.iptables;
  }
}
