package dev.proxima.proxy.runtime;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.health.ServiceHealthServers;
import dev.proxima.proxy.informers.ProxyCache;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodeIps;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * After each successful sync, opens and closes the {@code healthCheckNodePort} listeners of {@code
 * externalTrafficPolicy: Local} Services, counting this node's ready endpoints in every family.
 */
final class ServiceHealthChecks implements Consumer<SyncResult> {
  private final ServiceHealthServers servers;
  private final RuleSettings rules;
  private final ProxyCache cache;
  private final Map<IpFamily, NodePlanner.FamilyPlan> loaded = new EnumMap<>(IpFamily.class);

  ServiceHealthChecks(ServiceHealthServers servers, RuleSettings rules, ProxyCache cache) {
    this.servers = servers;
    this.rules = rules;
    this.cache = cache;
  }

  @Override
  public void accept(SyncResult result) {
    if (!result.succeeded() || result.plan() == null) {
      return;
    }
    loaded.put(result.family(), result.plan());
    Map<ObjectKey, Integer> ports = new HashMap<>();
    Map<ObjectKey, Set<String>> readyLocal = new HashMap<>();
    for (var plan : loaded.values()) {
      for (var planned : plan.ports()) {
        var port = planned.port();
        if (port.healthCheckNodePort() == 0 || !port.externalTrafficLocal()) {
          continue;
        }
        var service = port.name().service();
        ports.put(service, port.healthCheckNodePort());
        var ips = readyLocal.computeIfAbsent(service, k -> new HashSet<>());
        planned.endpoints().stream()
            .filter(e -> e.local() && e.ready() && !e.terminating())
            .forEach(e -> ips.add(e.ip()));
      }
    }
    Map<ObjectKey, Integer> counts = new HashMap<>();
    readyLocal.forEach((service, ips) -> counts.put(service, ips.size()));
    servers.sync(ports, counts, addresses(result.hostAddresses()));
  }

  /** Both families' --nodeport-addresses, as for NodePorts; without the flag every address. */
  private List<String> addresses(List<String> hostAddresses) {
    if (rules.nodePortCidrs().isEmpty()) {
      return ServiceHealthServers.EVERY_ADDRESS;
    }
    var addresses = new ArrayList<String>();
    // The same selection as the NodePort rules: host interfaces, and `primary` from the Node.
    var primary = NodeIps.primary(cache.node());
    for (var family : IpFamily.values()) {
      addresses.addAll(rules.nodePortAddresses(family, hostAddresses, primary));
    }
    return addresses;
  }
}
