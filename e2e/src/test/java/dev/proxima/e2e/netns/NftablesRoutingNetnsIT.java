package dev.proxima.e2e.netns;

import dev.proxima.proxy.model.ProxyMode;

/** The routing scenarios with the proxies in nftables mode. */
class NftablesRoutingNetnsIT extends RoutingScenarios {
  @Override
  ProxyMode mode() {
    return ProxyMode.nftables;
  }
}
