package dev.proxima.e2e.netns;

import dev.proxima.proxy.model.ProxyMode;

/** The zone spill-over scenarios with the proxies in iptables mode. */
class IptablesZoneSpillOverNetnsIT extends ZoneSpillOverScenarios {
  @Override
  ProxyMode mode() {
    return ProxyMode.iptables;
  }
}
