package dev.proxima.proxy.plan;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides which Service port owns each address key ({@code address . protocol . port}) that more
 * than one claims, the same way in full and partial syncs and in both modes, so no renderer ever
 * sees two claims on one key.
 *
 * <p>The order cannot be chosen by a tenant. A ClusterIP wins over everything: the API server
 * allocates it, uniquely. Then load-balancer ingress IPs, which a trusted controller writes to the
 * Service's status. ExternalIPs come last: anyone who can write a Service can set them to any
 * address, another Service's ClusterIP included. Within one class the older Service wins, then the
 * smaller UID ({@link dev.proxima.proxy.model.ServiceOrigin}); the Service port name breaks a tie
 * only when neither is known (offline files without metadata). Upstream kube-proxy has no rule
 * here: the outcome depends on rule order or on which element nft sees first.
 *
 * <p>The loser of an externalIP or load-balancer key programs its other addresses without that one.
 * A port that loses its ClusterIP key (two Services given one ClusterIP, which the API server never
 * does) is left out whole. Incremental: {@link #put} replaces one Service's claims and says which
 * Services' outcome it may change, so a partial sync re-renders only those.
 */
public final class AddressOwners {
  /** The classes of claim, strongest first. */
  public enum Kind {
    CLUSTER_IP("clusterIP"),
    LOAD_BALANCER_IP("load-balancer IP"),
    EXTERNAL_IP("externalIP");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** One port's claim on one key. */
  private record Claim(ServicePort port, Kind kind) {}

  private static final Comparator<Claim> STRONGEST_FIRST =
      Comparator.comparing(Claim::kind)
          .thenComparing(claim -> claim.port().origin())
          .thenComparing(claim -> claim.port().name());

  /**
   * Two Service ports claiming one key, and which keeps it.
   *
   * @param key {@code address protocol/port}
   */
  public record Collision(
      String key, ServicePortName winner, Kind winnerKind, ServicePortName loser, Kind loserKind) {
    @Override
    public String toString() {
      return key
          + ": "
          + loserKind.label()
          + " of "
          + loser
          + " collides with the "
          + winnerKind.label()
          + " of "
          + winner
          + "; "
          + winner
          + " keeps it"
          + (loserKind == Kind.CLUSTER_IP ? " and " + loser + " is not programmed" : "");
    }
  }

  private final Map<String, List<Claim>> claimsByKey = new HashMap<>();
  private final Map<ObjectKey, List<ServicePort>> portsByService = new HashMap<>();

  /** Keys more than one Service port claims. */
  private final Set<String> contested = new TreeSet<>();

  /** The owners of every key these ports claim. */
  public static AddressOwners of(List<ServicePort> ports) {
    var owners = new AddressOwners();
    var byService = new LinkedHashMap<ObjectKey, List<ServicePort>>();
    for (var port : ports) {
      byService.computeIfAbsent(port.name().service(), k -> new ArrayList<>()).add(port);
    }
    byService.forEach(owners::put);
    return owners;
  }

  /**
   * Replaces the claims of one Service (no ports: it is gone).
   *
   * @return the Services whose {@link #effective} ports may differ now: this one and every other
   *     claimant of a key it claimed before or claims now
   */
  public Set<ObjectKey> put(ObjectKey service, List<ServicePort> ports) {
    var touched = new HashSet<String>();
    var before = portsByService.remove(service);
    if (before != null) {
      for (var port : before) {
        claims(
            port,
            (key, kind) -> {
              var list = claimsByKey.get(key);
              if (list != null) {
                list.removeIf(claim -> claim.port().name().service().equals(service));
                if (list.isEmpty()) {
                  claimsByKey.remove(key);
                }
              }
              touched.add(key);
            });
      }
    }
    if (!ports.isEmpty()) {
      portsByService.put(service, List.copyOf(ports));
      for (var port : ports) {
        claims(
            port,
            (key, kind) -> {
              var list = claimsByKey.computeIfAbsent(key, k -> new ArrayList<>(1));
              if (list.stream()
                  .noneMatch(c -> c.port().name().equals(port.name()) && c.kind() == kind)) {
                list.add(new Claim(port, kind));
              }
              touched.add(key);
            });
      }
    }
    var affected = new TreeSet<ObjectKey>();
    affected.add(service);
    for (var key : touched) {
      var list = claimsByKey.get(key);
      if (list == null) {
        contested.remove(key);
        continue;
      }
      list.sort(STRONGEST_FIRST);
      list.forEach(claim -> affected.add(claim.port().name().service()));
      if (list.stream().map(claim -> claim.port().name()).distinct().count() > 1) {
        contested.add(key);
      } else {
        contested.remove(key);
      }
    }
    return affected;
  }

  /**
   * {@code port} as it may be programmed: without the externalIPs and load-balancer IPs whose key
   * another port owns, or null when another port owns its ClusterIP key. The port itself when it
   * owns every key it claims, which is the usual case.
   */
  public ServicePort effective(ServicePort port) {
    if (contested.isEmpty()) {
      return port;
    }
    if (!owns(port, key(port.clusterIp(), port))) {
      return null;
    }
    var externalIps = kept(port, port.externalIps());
    var loadBalancerIps = kept(port, port.loadBalancerIps());
    if (externalIps.size() == port.externalIps().size()
        && loadBalancerIps.size() == port.loadBalancerIps().size()) {
      return port;
    }
    return port.withAddresses(externalIps, loadBalancerIps);
  }

  /** Every contested key's losers, in key order. */
  public List<Collision> collisions() {
    var result = new ArrayList<Collision>();
    for (var key : contested) {
      var list = claimsByKey.get(key);
      var winner = list.get(0);
      var seen = new HashSet<ServicePortName>();
      seen.add(winner.port().name());
      for (var claim : list) {
        if (seen.add(claim.port().name())) {
          result.add(
              new Collision(
                  key, winner.port().name(), winner.kind(), claim.port().name(), claim.kind()));
        }
      }
    }
    return result;
  }

  private List<String> kept(ServicePort port, List<String> addresses) {
    var kept = new ArrayList<String>(addresses.size());
    for (var address : addresses) {
      if (owns(port, key(address, port))) {
        kept.add(address);
      }
    }
    return kept;
  }

  private boolean owns(ServicePort port, String key) {
    if (!contested.contains(key)) {
      return true;
    }
    return claimsByKey.get(key).get(0).port().name().equals(port.name());
  }

  private interface ClaimSink {
    void claim(String key, Kind kind);
  }

  private static void claims(ServicePort port, ClaimSink sink) {
    sink.claim(key(port.clusterIp(), port), Kind.CLUSTER_IP);
    for (var address : port.loadBalancerIps()) {
      sink.claim(key(address, port), Kind.LOAD_BALANCER_IP);
    }
    for (var address : port.externalIps()) {
      sink.claim(key(address, port), Kind.EXTERNAL_IP);
    }
  }

  private static String key(String address, ServicePort port) {
    return address + " " + port.protocol().lower() + "/" + port.port();
  }
}
