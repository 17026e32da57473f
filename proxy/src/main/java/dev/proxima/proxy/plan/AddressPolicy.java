package dev.proxima.proxy.plan;

import dev.proxima.proxy.catalog.ServiceCatalog;
import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * What a tenant's Service may not point at on this node, decided before address ownership; the
 * rules and their reasons are in docs/proxy.md. An externalIP may not take this node's or another
 * Node's address, the pod or Service ranges, or (with {@code --external-ip-cidrs}) anything outside
 * those ranges. An endpoint that is a node's address at a NodePort (allocated cluster-wide, so any
 * Service's counts) would loop between nodes until conntrack fills; the same address at another
 * port is an endpoint like any other. Each refusal is a plan warning naming the Service.
 */
public final class AddressPolicy {
  /** Nothing known about the node: only {@code allowed} applies. */
  public static final AddressPolicy NONE =
      new AddressPolicy(
          List.of(), List.of(), List.of(), List.of(), Set.of(), ClusterNodeAddresses.NONE);

  private final Set<IpAddress> nodeAddresses;
  private final ClusterNodeAddresses clusterNodes;
  private final Ranges podRanges;
  private final Ranges serviceRanges;
  private final Ranges allowedExternal;
  private final Supplier<Set<String>> knownNodePorts;

  /**
   * @param allowedExternal {@code --external-ip-cidrs}: when not empty, externalIPs only inside
   * @param knownNodePorts NodePorts ({@code protocol/port}) of Services not in the plan at hand (a
   *     partial sync's other Services)
   * @param clusterNodes every Node's InternalIP and ExternalIP addresses, refused like this node's
   */
  public AddressPolicy(
      Collection<String> nodeAddresses,
      Collection<String> podRanges,
      Collection<String> serviceRanges,
      Collection<String> allowedExternal,
      Set<String> knownNodePorts,
      ClusterNodeAddresses clusterNodes) {
    this.clusterNodes = clusterNodes;
    this.nodeAddresses =
        nodeAddresses.stream()
            .map(IpAddress::parse)
            .filter(Objects::nonNull)
            .collect(Collectors.toSet());
    var allPodRanges = new ArrayList<>(podRanges);
    allPodRanges.addAll(clusterNodes.podCidrs());
    this.podRanges = cidrs(allPodRanges);
    this.serviceRanges = cidrs(serviceRanges);
    this.allowedExternal = cidrs(allowedExternal);
    var known = Set.copyOf(knownNodePorts);
    this.knownNodePorts = () -> known;
  }

  /**
   * What the Node alone says: its addresses and pod CIDRs (offline {@code render}, {@code
   * explain}).
   */
  public static AddressPolicy ofNode(Node node) {
    return new AddressPolicy(
        NodeIps.all(node),
        NodeIps.podCidrs(node),
        List.of(),
        List.of(),
        Set.of(),
        ClusterNodeAddresses.NONE);
  }

  /**
   * This policy with the NodePorts ({@link #nodePortKey}) of Services a partial plan does not see,
   * asked for only when an endpoint is one of the node's addresses.
   */
  public AddressPolicy withKnownNodePorts(Supplier<Set<String>> nodePorts) {
    return new AddressPolicy(this, nodePorts);
  }

  private AddressPolicy(AddressPolicy base, Supplier<Set<String>> knownNodePorts) {
    this.nodeAddresses = base.nodeAddresses;
    this.clusterNodes = base.clusterNodes;
    this.podRanges = base.podRanges;
    this.serviceRanges = base.serviceRanges;
    this.allowedExternal = base.allowedExternal;
    this.knownNodePorts = knownNodePorts;
  }

  /**
   * What this policy judges by, compared by {@code equals} and in any order: when it changes, every
   * Service must be judged again (a full sync), not only the changed ones.
   */
  public Object inputs() {
    return List.of(
        nodeAddresses,
        clusterNodes,
        podRanges.networks(),
        serviceRanges.networks(),
        allowedExternal.networks());
  }

  /** Why {@code address} may not be an externalIP here, or null when it may. */
  public String externalIpRefusal(String address) {
    var ip = IpAddress.parse(address);
    if (ip == null) {
      return null;
    }
    if (nodeAddresses.contains(ip)) {
      return "is one of this node's addresses";
    }
    var node = clusterNodes.nodeOf(ip);
    if (node != null) {
      return "is an address of node " + node;
    }
    if (podRanges.contain(ip)) {
      return "is inside the cluster's pod ranges";
    }
    if (serviceRanges.contain(ip)) {
      return "is inside the cluster's Service ranges";
    }
    if (!allowedExternal.networks().isEmpty() && !allowedExternal.contain(ip)) {
      return "is outside --external-ip-cidrs";
    }
    return null;
  }

  /**
   * The ports as this node may program them: externalIPs the policy refuses taken out, endpoints
   * that would loop through a NodePort left out; a warning per Service and reason.
   */
  public List<ServiceCatalog.Entry> apply(List<ServiceCatalog.Entry> ports, List<String> warnings) {
    var nodePorts = new HashSet<String>();
    for (var input : ports) {
      if (input.port().nodePort() != 0) {
        nodePorts.add(nodePortKey(input.port().protocol(), input.port().nodePort()));
      }
    }
    // The ports of one Service share one externalIPs list: each list is judged once.
    Map<List<String>, List<String>> keptExternal = new IdentityHashMap<>();
    var warned = new HashSet<String>();
    var result = new ArrayList<ServiceCatalog.Entry>(ports.size());
    for (var input : ports) {
      var port = input.port();
      var service = port.name().service();
      var externalIps =
          keptExternal.computeIfAbsent(
              port.externalIps(), list -> keptExternalIps(service.toString(), list, warnings));
      if (externalIps.size() != port.externalIps().size()) {
        port = port.withExternalIps(externalIps);
      }
      var endpoints = withoutLoops(port, input.endpoints(), nodePorts, warned, warnings);
      result.add(new ServiceCatalog.Entry(port, endpoints));
    }
    return result;
  }

  private List<String> keptExternalIps(
      String service, List<String> addresses, List<String> warnings) {
    if (addresses.isEmpty()) {
      return addresses;
    }
    var kept = new ArrayList<String>(addresses.size());
    for (var address : addresses) {
      var refusal = externalIpRefusal(address);
      if (refusal == null) {
        kept.add(address);
      } else {
        warnings.add(
            "%s spec.externalIPs: %s %s; the externalIP is not programmed"
                .formatted(service, address, refusal));
      }
    }
    return kept.size() == addresses.size() ? addresses : List.copyOf(kept);
  }

  private List<Endpoint> withoutLoops(
      ServicePort port,
      List<Endpoint> endpoints,
      Set<String> nodePorts,
      Set<String> warned,
      List<String> warnings) {
    if (nodeAddresses.isEmpty() && clusterNodes.isEmpty()) {
      return endpoints;
    }
    List<Endpoint> kept = null;
    for (int i = 0; i < endpoints.size(); i++) {
      var endpoint = endpoints.get(i);
      var owner = nodeOwning(IpAddress.parse(endpoint.ip()));
      boolean loops = false;
      if (owner != null) {
        var key = nodePortKey(port.protocol(), endpoint.port());
        loops = nodePorts.contains(key) || knownNodePorts.get().contains(key);
      }
      if (loops) {
        if (kept == null) {
          kept = new ArrayList<>(endpoints.subList(0, i));
        }
        if (warned.add(port.name().toString())) {
          warnings.add(
              "%s: endpoint %s is %s at a NodePort; it would loop, so it is not programmed"
                  .formatted(port.name(), endpoint.address(), owner));
        }
      } else if (kept != null) {
        kept.add(endpoint);
      }
    }
    return kept == null ? endpoints : kept;
  }

  /** Whose address {@code ip} is, as a warning says it; null when no Node's. */
  private String nodeOwning(IpAddress ip) {
    if (nodeAddresses.contains(ip)) {
      return "this node's address";
    }
    var node = clusterNodes.nodeOf(ip);
    return node == null ? null : "an address of node " + node;
  }

  /** A NodePort as {@link #withKnownNodePorts} takes it: {@code tcp/30080}. */
  public static String nodePortKey(Protocol protocol, int port) {
    return protocol.lower() + "/" + port;
  }

  /**
   * The outermost of some ranges, looked up once per prefix length they use rather than scanned:
   * with every Node's pod CIDR there may be thousands, and every externalIP is looked up.
   */
  private record Ranges(Set<Cidr> networks, Set<Integer> prefixes) {
    static Ranges of(List<Cidr> outermost) {
      var prefixes = new java.util.TreeSet<Integer>();
      outermost.forEach(range -> prefixes.add(range.prefix()));
      return new Ranges(Set.copyOf(outermost), Set.copyOf(prefixes));
    }

    boolean contain(IpAddress ip) {
      for (int prefix : prefixes) {
        var network = Cidr.parse(ip + "/" + prefix);
        if (network != null && networks.contains(network)) {
          return true;
        }
      }
      return false;
    }
  }

  private static Ranges cidrs(Collection<String> raw) {
    return Ranges.of(
        Cidr.outermost(raw.stream().map(Cidr::parse).filter(Objects::nonNull).toList()));
  }
}
