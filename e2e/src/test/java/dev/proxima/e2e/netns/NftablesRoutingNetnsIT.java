package dev.proxima.e2e.netns;

/** The routing scenarios with the proxies in nftables mode. */
class NftablesRoutingNetnsIT extends RoutingScenarios {
  @Override
  ProxyMode mode() {
    return ProxyMode.NFTABLES;
  }
}
