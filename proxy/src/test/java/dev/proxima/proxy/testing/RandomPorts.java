package dev.proxima.proxy.testing;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Service ports with random features, for the render-path equivalence tests of both modes. */
public final class RandomPorts {
  private RandomPorts() {}

  /** Services {@code 0..services-1}, one random port each, by name. */
  public static Map<ServicePortName, ServicePortRules> initial(
      Random random, int services, IpFamily family) {
    var ports = new TreeMap<ServicePortName, ServicePortRules>();
    for (int i = 0; i < services; i++) {
      var rules = port(random, i, family);
      ports.put(rules.port().name(), rules);
    }
    return ports;
  }

  /**
   * One to three random changes among Services {@code 0..services-1} (a quarter of those present
   * removed), applied to {@code current}; the changes as a sync hands them over (null removes).
   */
  public static Map<ServicePortName, ServicePortRules> change(
      Random random,
      int services,
      IpFamily family,
      Map<ServicePortName, ServicePortRules> current) {
    var changes = new HashMap<ServicePortName, ServicePortRules>();
    int count = 1 + random.nextInt(3);
    for (int c = 0; c < count; c++) {
      var rules = port(random, random.nextInt(services), family);
      var name = rules.port().name();
      boolean remove = current.containsKey(name) && random.nextInt(4) == 0;
      changes.put(name, remove ? null : rules);
    }
    changes.forEach(
        (name, rules) -> {
          if (rules == null) {
            current.remove(name);
          } else {
            current.put(name, rules);
          }
        });
    return changes;
  }

  /**
   * A port of Service {@code index} with random features. Endpoints come from a small pool, so
   * ports share hairpins and endpoint counts; addresses and NodePorts are the port's own, as the
   * planner's AddressOwners guarantees before anything reaches the renderer (a key two ports claim
   * is not rendered the same way by partial and full syncs: see docs/architecture.md).
   */
  public static ServicePortRules port(Random random, int index, IpFamily family) {
    boolean v6 = family == IpFamily.IPV6;
    var svc =
        service(
                "ns" + index % 3 + "/svc" + index,
                v6 ? "fd00:96::" + Integer.toHexString(index + 1) : "10.96.0." + (index + 1),
                random.nextBoolean() ? 80 : 443)
            .protocol(random.nextInt(4) == 0 ? Protocol.UDP : Protocol.TCP);
    if (random.nextInt(3) == 0) {
      svc.nodePort(30000 + index);
    }
    if (random.nextInt(4) == 0) {
      svc.externalIps(v6 ? "2001:db8::" + (index + 1) : "192.0.2." + (index + 1));
    }
    if (random.nextInt(4) == 0) {
      svc.loadBalancerIps(v6 ? "2001:db8:1::" + (index + 1) : "203.0.113." + (index + 1));
      if (random.nextBoolean()) {
        svc.sourceRanges(
            random.nextBoolean() ? (v6 ? "2001:db8:9::/48" : "198.51.100.0/24") : "not-a-cidr");
      }
    }
    if (random.nextInt(5) == 0) {
      svc.sticky(Duration.ofSeconds(random.nextBoolean() ? 60 : 120));
    }
    if (random.nextInt(4) == 0) {
      svc.externalLocal();
    }
    if (random.nextInt(6) == 0) {
      svc.internalLocal();
    }
    var cluster = new ArrayList<Endpoint>();
    var localList = new ArrayList<Endpoint>();
    int endpoints = random.nextInt(5);
    for (int e = 0; e < endpoints; e++) {
      var ip = v6 ? "fd00:10::" + (1 + random.nextInt(8)) : "10.180.0." + (1 + random.nextInt(8));
      var here = random.nextInt(3) == 0;
      var endpoint = here ? local(ip, 8080) : remote(ip, 8080);
      if (cluster.stream().noneMatch(other -> other.ip().equals(ip))) {
        cluster.add(endpoint);
        if (here) {
          localList.add(endpoint);
        }
      }
    }
    boolean any = !cluster.isEmpty() || random.nextInt(5) == 0;
    return svc.rules(cluster, localList, any);
  }
}
