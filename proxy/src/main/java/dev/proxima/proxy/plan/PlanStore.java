package dev.proxima.proxy.plan;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One IP family's plan between syncs: each Service's ports as they claim their addresses, who owns
 * each contested address ({@link AddressOwners}), and each Service's ports as programmed after
 * that. A full sync replaces it all; a partial sync updates the Services that changed and learns
 * which ports to render again, including those of other Services that won or lost an address by it.
 * Not thread-safe: its one user, the family's {@code Proxier}, serialises the syncs.
 */
public final class PlanStore {
  private final IpFamily family;
  private final String nodeName;

  /** What each Service's ports were last programmed as, after address ownership. */
  private final Map<ObjectKey, List<NodePlanner.PlannedPort>> plannedByService = new TreeMap<>();

  /** Each Service's ports as they claim their addresses, before ownership is decided. */
  private final Map<ObjectKey, List<NodePlanner.PlannedPort>> claimsByService = new HashMap<>();

  private AddressOwners owners = new AddressOwners();

  /**
   * The ports to render again (null for one gone), and whether a UDP port was among them, before or
   * after, so stale UDP flows may need clearing.
   */
  public record Changes(Map<ServicePortName, NodePlanner.PlannedPort> ports, boolean touchedUdp) {
    public Changes {
      ports = Collections.unmodifiableMap(ports);
    }
  }

  public PlanStore(IpFamily family, String nodeName) {
    this.family = family;
    this.nodeName = nodeName;
  }

  /** Forgets everything and takes every Service's claims; returns every port as programmed. */
  public List<NodePlanner.PlannedPort> replaceAll(
      List<NodePlanner.PlannedPort> claims, String zone) {
    plannedByService.clear();
    claimsByService.clear();
    owners = AddressOwners.of(ports(claims));
    claims.forEach(
        p ->
            claimsByService
                .computeIfAbsent(p.port().name().service(), k -> new ArrayList<>())
                .add(p));
    claimsByService.forEach(
        (key, ports) -> {
          var owned = owned(ports, zone);
          if (!owned.isEmpty()) {
            plannedByService.put(key, owned);
          }
        });
    return allPorts();
  }

  /**
   * Takes the claims of the Services that changed (empty: gone or not handled here); returns the
   * ports whose programmed form differs now, theirs and those whose address ownership moved.
   */
  public Changes update(Map<ObjectKey, List<NodePlanner.PlannedPort>> changedClaims, String zone) {
    var affected = new TreeSet<ObjectKey>();
    changedClaims.forEach(
        (key, claims) -> {
          var before =
              claims.isEmpty() ? claimsByService.remove(key) : claimsByService.put(key, claims);
          affected.addAll(
              owners.put(key, ports(before == null ? List.of() : before), ports(claims)));
        });
    // A Service whose ports plan as before renders as before and is left out, changed or not (an
    // informer that replays what it listed, an endpoint this node's selection passes over):
    // rendering it again and then again as it was would cost a partial sync time and memory in
    // proportion to it, for nothing to load.
    Map<ServicePortName, NodePlanner.PlannedPort> changedPorts = new HashMap<>();
    boolean touchedUdp = false;
    for (var key : affected) {
      var before = plannedByService.getOrDefault(key, List.of());
      var after = owned(claimsByService.getOrDefault(key, List.of()), zone);
      if (after.equals(before)) {
        continue;
      }
      before.forEach(p -> changedPorts.put(p.port().name(), null));
      after.forEach(p -> changedPorts.put(p.port().name(), p));
      touchedUdp |= anyUdp(before) || anyUdp(after);
      if (after.isEmpty()) {
        plannedByService.remove(key);
      } else {
        plannedByService.put(key, after);
      }
    }
    return new Changes(changedPorts, touchedUdp);
  }

  public NodePlanner.FamilyPlan current(String zone) {
    return new NodePlanner.FamilyPlan(
        family, nodeName, zone, allPorts(), List.of(), List.of(), owners.collisions());
  }

  public List<NodePlanner.PlannedPort> allPorts() {
    var ports = new ArrayList<NodePlanner.PlannedPort>();
    plannedByService.values().forEach(ports::addAll);
    return ports;
  }

  public Optional<NodePlanner.PlannedPort> port(ServicePortName name) {
    return plannedByService.getOrDefault(name.service(), List.of()).stream()
        .filter(p -> p.port().name().equals(name))
        .findFirst();
  }

  public int serviceCount() {
    return plannedByService.size();
  }

  public List<AddressOwners.Collision> collisions() {
    return owners.collisions();
  }

  private static boolean anyUdp(List<NodePlanner.PlannedPort> ports) {
    return ports.stream().anyMatch(p -> p.port().protocol() == Protocol.UDP);
  }

  private static List<ServicePort> ports(List<NodePlanner.PlannedPort> planned) {
    return planned.stream().map(NodePlanner.PlannedPort::port).toList();
  }

  /**
   * A Service's ports as their address owners let them be programmed: {@code claims} itself when it
   * owns every key it claims, the usual case, so the two maps share their lists.
   */
  private List<NodePlanner.PlannedPort> owned(List<NodePlanner.PlannedPort> claims, String zone) {
    List<NodePlanner.PlannedPort> owned = null;
    for (int i = 0; i < claims.size(); i++) {
      var planned = claims.get(i);
      var port = NodePlanner.owned(planned, owners, nodeName, zone);
      if (port != planned && owned == null) {
        owned = new ArrayList<>(claims.subList(0, i));
      }
      if (owned != null && port != null) {
        owned.add(port);
      }
    }
    return owned == null ? claims : owned;
  }
}
