package dev.proxima.proxy.plan;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Protocol;
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
 * sees two claims on one key. The order, which a tenant cannot choose, is in docs/proxy.md ("Who
 * owns an address"): ClusterIP, then load-balancer IP (written by a trusted controller), then
 * externalIP (anyone who can write a Service can set it); within a class the older Service, then
 * the smaller UID ({@link dev.proxima.proxy.model.ServiceOrigin}). A ClusterIP's address belongs to
 * its Service at every port. What the node itself owns is refused earlier, by {@link
 * AddressPolicy}. Incremental: {@link #put} says which Services' outcome a change may move, so a
 * partial sync re-renders only those.
 */
public final class AddressOwners {
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

  private record Claim(ServicePort port, Kind kind) {
    boolean sameAs(Claim other) {
      return port.name().equals(other.port.name()) && kind == other.kind;
    }

    ObjectKey service() {
      return port.name().service();
    }
  }

  /** An address key; the address is the catalog's canonical string, shared, not copied. */
  private record Key(String address, Protocol protocol, int port) {
    @Override
    public String toString() {
      return address + " " + protocol.lower() + "/" + port;
    }
  }

  private static final Comparator<Claim> STRONGEST_FIRST =
      Comparator.comparing(Claim::kind)
          .thenComparing(claim -> claim.port().origin())
          .thenComparing(claim -> claim.port().name());

  /** Two Service ports claiming one key ({@code address protocol/port}), and which keeps it. */
  public record Collision(
      String key, ServicePortName winner, Kind winnerKind, ServicePortName loser, Kind loserKind) {
    @Override
    public String toString() {
      return "%s: %s of %s collides with the %s of %s; %s keeps it%s"
          .formatted(
              key,
              loserKind.label(),
              loser,
              winnerKind.label(),
              winner,
              winner,
              loserKind == Kind.CLUSTER_IP ? " and " + loser + " is not programmed" : "");
    }
  }

  /**
   * Every claimed key: a {@link Claim} when one port claims it (nearly always, so the proxy does
   * not hold a list per Service port), else an {@code ArrayList<Claim>}, strongest first.
   */
  private final Map<Key, Object> claims = new HashMap<>();

  private final Set<Key> contested = new HashSet<>();

  /** The Services whose ClusterIP each address is (one, unless the API server erred). */
  private final Map<String, Set<ObjectKey>> clusterIpHolders = new HashMap<>();

  private final Map<String, Map<ServicePortName, Integer>> externalIpPorts = new HashMap<>();

  /**
   * Addresses that are one Service's ClusterIP and another's externalIP: the externalIP is refused
   * at every port, served by the ClusterIP's Service or not (kube-dns at 853, say).
   */
  private final Set<String> shadowed = new HashSet<>();

  public static AddressOwners of(List<ServicePort> ports) {
    var owners = new AddressOwners();
    var byService = new LinkedHashMap<ObjectKey, List<ServicePort>>();
    for (var port : ports) {
      byService.computeIfAbsent(port.name().service(), k -> new ArrayList<>()).add(port);
    }
    byService.forEach((service, its) -> owners.put(service, List.of(), its));
    return owners;
  }

  /**
   * Replaces the claims of one Service: {@code before} are its ports as last given (empty when
   * new), {@code after} its ports now (empty when gone).
   *
   * @return the Services whose {@link #effective} ports may differ now: this one and every other
   *     claimant of a key it claimed before or claims now
   */
  public Set<ObjectKey> put(ObjectKey service, List<ServicePort> before, List<ServicePort> after) {
    var touched = new ArrayList<Key>();
    var addresses = new HashSet<String>();
    for (var port : before) {
      remove(clusterIpHolders, port.clusterIp(), service);
      addresses.add(port.clusterIp());
      for (var address : port.externalIps()) {
        var ports = externalIpPorts.get(address);
        if (ports != null && ports.remove(port.name()) != null && ports.isEmpty()) {
          externalIpPorts.remove(address);
        }
        addresses.add(address);
      }
      claims(
          port,
          (key, kind) -> {
            release(key, service);
            touched.add(key);
          });
    }
    for (var port : after) {
      clusterIpHolders.computeIfAbsent(port.clusterIp(), k -> new HashSet<>()).add(service);
      addresses.add(port.clusterIp());
      for (var address : port.externalIps()) {
        externalIpPorts
            .computeIfAbsent(address, k -> new HashMap<>())
            .put(port.name(), port.port());
        addresses.add(address);
      }
      claims(
          port,
          (key, kind) -> {
            hold(key, new Claim(port, kind));
            touched.add(key);
          });
    }
    var affected = new TreeSet<ObjectKey>();
    affected.add(service);
    for (var address : addresses) {
      var holders = clusterIpHolders.getOrDefault(address, Set.of());
      var users = externalIpPorts.getOrDefault(address, Map.of()).keySet();
      affected.addAll(holders);
      users.forEach(port -> affected.add(port.service()));
      if (users.stream().anyMatch(port -> shadows(holders, port.service()))) {
        shadowed.add(address);
      } else {
        shadowed.remove(address);
      }
    }
    for (var key : touched) {
      var held = claims.get(key);
      if (held instanceof Claim claim) {
        affected.add(claim.service());
        contested.remove(key);
      } else if (held != null) {
        @SuppressWarnings("unchecked")
        var list = (List<Claim>) held;
        list.sort(STRONGEST_FIRST);
        list.forEach(claim -> affected.add(claim.service()));
        if (list.stream().map(claim -> claim.port().name()).distinct().count() > 1) {
          contested.add(key);
        } else {
          contested.remove(key);
        }
      } else {
        contested.remove(key);
      }
    }
    return affected;
  }

  private static <T> void remove(Map<String, Set<T>> index, String address, T value) {
    var values = index.get(address);
    if (values != null && values.remove(value) && values.isEmpty()) {
      index.remove(address);
    }
  }

  private static boolean shadows(Set<ObjectKey> holders, ObjectKey service) {
    return holders.size() > 1 || (holders.size() == 1 && !holders.contains(service));
  }

  private boolean shadowed(String address, ObjectKey service) {
    return shadowed.contains(address)
        && shadows(clusterIpHolders.getOrDefault(address, Set.of()), service);
  }

  private void release(Key key, ObjectKey service) {
    var held = claims.get(key);
    if (held instanceof Claim claim) {
      if (claim.service().equals(service)) {
        claims.remove(key);
      }
    } else if (held != null) {
      @SuppressWarnings("unchecked")
      var list = (List<Claim>) held;
      list.removeIf(claim -> claim.service().equals(service));
      if (list.isEmpty()) {
        claims.remove(key);
      } else if (list.size() == 1) {
        claims.put(key, list.get(0));
      }
    }
  }

  private void hold(Key key, Claim claim) {
    var held = claims.get(key);
    if (held == null) {
      claims.put(key, claim);
    } else if (held instanceof Claim other) {
      if (!other.sameAs(claim)) {
        var list = new ArrayList<Claim>(2);
        list.add(other);
        list.add(claim);
        claims.put(key, list);
      }
    } else {
      @SuppressWarnings("unchecked")
      var list = (List<Claim>) held;
      if (list.stream().noneMatch(claim::sameAs)) {
        list.add(claim);
      }
    }
  }

  private Claim winner(Key key) {
    var held = claims.get(key);
    if (held instanceof Claim claim) {
      return claim;
    }
    @SuppressWarnings("unchecked")
    var list = (List<Claim>) held;
    return list.get(0);
  }

  /**
   * {@code port} as it may be programmed: without the externalIPs and load-balancer IPs whose key
   * another port owns, or null when another port owns its ClusterIP key. The port itself when it
   * owns every key it claims, which is the usual case.
   */
  public ServicePort effective(ServicePort port) {
    if (contested.isEmpty() && shadowed.isEmpty()) {
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

  /** Every contested key's losers, in key order, then the externalIPs another ClusterIP shadows. */
  public List<Collision> collisions() {
    var result = new ArrayList<Collision>();
    collisionsAtKeys(result);
    var addresses = new ArrayList<>(shadowed);
    addresses.sort(null);
    for (var address : addresses) {
      var holders = new TreeSet<>(clusterIpHolders.getOrDefault(address, Set.of()));
      var users = externalIpPorts.getOrDefault(address, Map.of());
      for (var loser : new TreeSet<>(users.keySet())) {
        if (contested.contains(new Key(address, loser.protocol(), users.get(loser)))) {
          continue; // the same key: told as a collision at that key
        }
        var holder =
            holders.stream().filter(h -> !h.equals(loser.service())).findFirst().orElse(null);
        if (holder != null) {
          result.add(
              new Collision(
                  address + " any port",
                  new ServicePortName(holder, "", loser.protocol()),
                  Kind.CLUSTER_IP,
                  loser,
                  Kind.EXTERNAL_IP));
        }
      }
    }
    return result;
  }

  private void collisionsAtKeys(List<Collision> result) {
    var keys = new ArrayList<>(contested);
    keys.sort(Comparator.comparing(Key::toString));
    for (var key : keys) {
      @SuppressWarnings("unchecked")
      var list = (List<Claim>) claims.get(key);
      var winner = list.get(0);
      var seen = new HashSet<ServicePortName>();
      seen.add(winner.port().name());
      for (var claim : list) {
        if (seen.add(claim.port().name())) {
          result.add(
              new Collision(
                  key.toString(),
                  winner.port().name(),
                  winner.kind(),
                  claim.port().name(),
                  claim.kind()));
        }
      }
    }
  }

  private List<String> kept(ServicePort port, List<String> addresses) {
    var kept = new ArrayList<String>(addresses.size());
    for (var address : addresses) {
      if (owns(port, key(address, port)) && !shadowed(address, port.name().service())) {
        kept.add(address);
      }
    }
    return kept;
  }

  private boolean owns(ServicePort port, Key key) {
    return !contested.contains(key) || winner(key).port().name().equals(port.name());
  }

  private interface ClaimSink {
    void claim(Key key, Kind kind);
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

  private static Key key(String address, ServicePort port) {
    return new Key(address, port.protocol(), port.port());
  }
}
