package dev.proxima.proxy.catalog;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneSpillOverSetting;
import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpAddress;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServiceOrigin;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.model.SourceRanges;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Turns Services and EndpointSlices into the proxy's per-family model: one entry per Service port
 * with its parsed endpoints. This is the one place that reads API strings: addresses and CIDRs come
 * out canonical (parsed as the API server parses them), special addresses are dropped, values are
 * brought within the kernel tools' limits, so nothing downstream sees a raw string from the API.
 * Pure; invalid input (null list items included) is skipped with a warning naming the object and
 * field, never thrown, so one bad object cannot stop a node's proxy.
 */
public final class ServiceCatalog {
  /** The default ClientIP affinity timeout, as the API defaults it. */
  static final Duration DEFAULT_STICKY_TIMEOUT = Duration.ofSeconds(10800);

  /** The API server's upper limit for timeoutSeconds: one day. */
  static final Duration MAX_STICKY_TIMEOUT = Duration.ofSeconds(86400);

  /**
   * At most this many externalIPs of a Service are read. The API has no limit but the object's
   * size, and every port writes every address, so a tenant could otherwise make one Service cost
   * ports times a hundred thousand rules on every node.
   */
  static final int MAX_EXTERNAL_IPS = 1000;

  /**
   * At most this many ways in per Service: its ports times the addresses and source ranges each
   * port writes. Every one is a rule or element on every node, and the API bounds the product only
   * by the object's size (ten thousand ports times a thousand externalIPs fit), so a Service above
   * it keeps its first ports only. A hundred ports with a thousand addresses each still fit.
   */
  static final int MAX_WAYS_IN = 100_000;

  /**
   * At most this many outermost source ranges per Service, and at most {@link
   * #MAX_FIREWALL_ELEMENTS} ranges times ports: the iptables mode writes one rule per range in each
   * port's firewall chain, and nft keeps a list's ranges in an interval set of its own. Fewer
   * ranges admit fewer sources: the cut fails closed.
   */
  static final int MAX_SOURCE_RANGES = 1000;

  static final int MAX_FIREWALL_ELEMENTS = 4000;

  /**
   * @param serviceProxyName when set, only Services labelled
   *     service.kubernetes.io/service-proxy-name with this value are handled; null means only
   *     unlabelled Services are handled
   * @param nodeZone null when not known: endpoints off this node then have unknown locality
   */
  public record Options(
      String nodeName, IpFamily family, String serviceProxyName, String nodeZone) {
    public Options {
      Objects.requireNonNull(family, "family");
    }
  }

  public record Entry(ServicePort port, List<Endpoint> endpoints) {
    public Entry {
      endpoints = List.copyOf(endpoints);
    }
  }

  /** {@code skipped}: Services deliberately not programmed (headless, ExternalName, …). */
  public record Result(List<Entry> entries, List<String> skipped, List<String> warnings) {
    public Result {
      entries = List.copyOf(entries);
      skipped = List.copyOf(skipped);
      warnings = List.copyOf(warnings);
    }
  }

  private ServiceCatalog() {}

  public static Result build(
      Collection<Service> services, Collection<EndpointSlice> slices, Options options) {
    var warnings = new ArrayList<String>();
    var slicesByService = new HashMap<ObjectKey, List<EndpointSlice>>();
    for (var slice : slices) {
      if (slice == null
          || slice.getMetadata() == null
          || slice.getMetadata().getName() == null
          || slice.getMetadata().getNamespace() == null) {
        warnings.add("an EndpointSlice without metadata.name or metadata.namespace; ignored");
        continue;
      }
      if (!options.family().apiName().equals(slice.getAddressType())) {
        continue;
      }
      var labels = slice.getMetadata().getLabels();
      var name = labels == null ? null : labels.get(Labels.SERVICE_NAME);
      if (name != null && !name.isEmpty()) {
        slicesByService
            .computeIfAbsent(
                new ObjectKey(slice.getMetadata().getNamespace(), name), k -> new ArrayList<>())
            .add(slice);
      }
    }
    var entries = new ArrayList<Entry>();
    var skipped = new ArrayList<String>();
    // Keyed once: a comparator that made the keys would make two for each of the n log n
    // comparisons, a tenth of planning 10,000 Services.
    var ordered = new ArrayList<Considered>();
    for (var service : services) {
      if (service == null
          || service.getMetadata() == null
          || service.getMetadata().getName() == null
          || service.getMetadata().getNamespace() == null) {
        warnings.add("a Service without metadata.name or metadata.namespace; ignored");
        continue;
      }
      var reason = skipReason(service, options);
      // A Service with no cluster IP of this family has no port in it and nothing to warn about:
      // left out before it is keyed and sorted, so the IPv6 plan of a cluster of single-stack
      // IPv4 Services costs a pass over them, not a sort.
      if (reason == null && !mayHaveClusterIpOf(service.getSpec(), options.family())) {
        continue;
      }
      ordered.add(new Considered(keyOf(service), service, reason));
    }
    ordered.sort(Comparator.comparing(Considered::key));
    for (var considered : ordered) {
      var key = considered.key();
      var service = considered.service();
      var reason = considered.skipReason();
      if (reason != null) {
        skipped.add(key + ": " + reason);
        continue;
      }
      var ports = portsOf(service, options.family(), warnings);
      var serviceSlices = slicesByService.getOrDefault(key, List.of());
      for (var port : ports) {
        entries.add(new Entry(port, endpointsOf(port.name(), serviceSlices, options, warnings)));
      }
    }
    entries.sort(Comparator.comparing(entry -> entry.port().name()));
    return new Result(entries, skipped, warnings);
  }

  /** A Service taken into the plan, or into its skipped list when it has a reason. */
  private record Considered(ObjectKey key, Service service, String skipReason) {}

  static ObjectKey keyOf(Service service) {
    return new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName());
  }

  private static String skipReason(Service service, Options options) {
    var spec = service.getSpec();
    if (spec == null) {
      return "no spec";
    }
    if ("ExternalName".equals(spec.getType())) {
      return "type ExternalName is resolved by DNS, not proxied";
    }
    var labels = service.getMetadata().getLabels();
    var proxyName = labels == null ? null : labels.get(Labels.SERVICE_PROXY_NAME);
    if (proxyName != null && !proxyName.equals(options.serviceProxyName())) {
      return Labels.SERVICE_PROXY_NAME + "=" + proxyName + " hands it to another proxy";
    }
    // With a name of its own, Proxima runs beside the default proxy and takes only the Services
    // labelled for it; unlabelled ones stay with kube-proxy, as kube-proxy's own filter assumes.
    if (proxyName == null && options.serviceProxyName() != null) {
      return "not labelled "
          + Labels.SERVICE_PROXY_NAME
          + "="
          + options.serviceProxyName()
          + "; the default proxy handles it";
    }
    var clusterIp = spec.getClusterIP();
    if (clusterIp == null || clusterIp.isEmpty() || "None".equals(clusterIp)) {
      return "headless: no ClusterIP to proxy";
    }
    return null;
  }

  static List<ServicePort> portsOf(Service service, IpFamily family, List<String> warnings) {
    boolean observesLocality =
        service.getMetadata() != null
            && Annotations.observesLocality(service.getMetadata().getAnnotations());
    var spillOver =
        ZoneSpillOverSetting.parse(
            service.getMetadata() == null ? null : service.getMetadata().getAnnotations());
    var key = keyOf(service);
    var spec = service.getSpec();
    var clusterIp = clusterIpOf(spec, family);
    if (clusterIp == null) {
      return List.of();
    }
    var rawExternalIps = spec.getExternalIPs();
    if (rawExternalIps != null && rawExternalIps.size() > MAX_EXTERNAL_IPS) {
      warnings.add(
          ("%s spec.externalIPs: %s addresses, above the proxy's cap of %s; only the first %s"
                  + " are read")
              .formatted(key, rawExternalIps.size(), MAX_EXTERNAL_IPS, MAX_EXTERNAL_IPS));
      rawExternalIps = rawExternalIps.subList(0, MAX_EXTERNAL_IPS);
    }
    var externalIps = addressesOf(rawExternalIps, family, key + " spec.externalIPs", warnings);
    var ingressIps = new ArrayList<String>();
    var status = service.getStatus();
    if (status != null
        && status.getLoadBalancer() != null
        && status.getLoadBalancer().getIngress() != null) {
      for (var ingress : status.getLoadBalancer().getIngress()) {
        var mode = ingress == null ? null : ingress.getIpMode();
        if (ingress != null && ingress.getIp() != null && (mode == null || "VIP".equals(mode))) {
          ingressIps.add(ingress.getIp());
        }
      }
    }
    var loadBalancerIps =
        addressesOf(ingressIps, family, key + " status.loadBalancer.ingress[].ip", warnings);
    var ranges = spec.getLoadBalancerSourceRanges();
    boolean restrictSources = ranges != null && !ranges.isEmpty();
    var sourceRanges = sourceRangesOf(ranges, family, key, !loadBalancerIps.isEmpty(), warnings);
    Duration sticky = null;
    if ("ClientIP".equals(spec.getSessionAffinity())) {
      sticky = stickyTimeoutOf(spec.getSessionAffinityConfig(), key, warnings);
    }
    boolean internalLocal = "Local".equals(spec.getInternalTrafficPolicy());
    boolean externalLocal = "Local".equals(spec.getExternalTrafficPolicy());
    int healthCheckNodePort =
        spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort();
    if (healthCheckNodePort < 0 || healthCheckNodePort > 65535) {
      warnings.add(
          key + " spec.healthCheckNodePort: " + healthCheckNodePort + " is out of range; ignored");
      healthCheckNodePort = 0;
    }
    var origin = originOf(service);
    var ports = new ArrayList<ServicePort>();
    if (spec.getPorts() == null) {
      return ports;
    }
    var seen = new HashSet<String>();
    long waysInPerPort =
        2L + externalIps.size() + loadBalancerIps.size() + (long) sourceRanges.size();
    for (int i = 0; i < spec.getPorts().size(); i++) {
      var port = spec.getPorts().get(i);
      var where = key + " spec.ports[" + i + "]";
      if (port == null) {
        warnings.add(where + ": null; ignored");
        continue;
      }
      var protocol = protocolOf(port.getProtocol());
      if (protocol == null) {
        warnings.add(
            "%s.protocol: \"%s\" is not TCP, UDP or SCTP; port ignored"
                .formatted(where, port.getProtocol()));
        continue;
      }
      if (port.getPort() == null || port.getPort() < 1 || port.getPort() > 65535) {
        warnings.add(where + ".port: " + port.getPort() + " is out of range 1-65535; port ignored");
        continue;
      }
      var portName = port.getName() == null ? "" : port.getName();
      if (!seen.add(portName + "/" + protocol)) {
        warnings.add(
            where + ".name: \"" + portName + "\"/" + protocol + " is given twice; port ignored");
        continue;
      }
      int nodePort = port.getNodePort() == null ? 0 : port.getNodePort();
      if (nodePort < 0 || nodePort > 65535) {
        warnings.add(where + ".nodePort: " + nodePort + " is out of range; NodePort ignored");
        nodePort = 0;
      }
      var name = new ServicePortName(key, portName, protocol);
      if ((long) (ports.size() + 1) * sourceRanges.size() > MAX_FIREWALL_ELEMENTS) {
        warnings.add(
            ("%s spec.ports: %s ports with %s source ranges each are above the proxy's cap of %s"
                    + " firewall entries per Service; only the first %s ports are read")
                .formatted(
                    key,
                    spec.getPorts().size(),
                    sourceRanges.size(),
                    MAX_FIREWALL_ELEMENTS,
                    ports.size()));
        break;
      }
      if ((long) (ports.size() + 1) * waysInPerPort > MAX_WAYS_IN) {
        warnings.add(
            ("%s spec.ports: %s ports with %s addresses and source ranges each are above the"
                    + " proxy's cap of %s per Service; only the first %s ports are read")
                .formatted(key, spec.getPorts().size(), waysInPerPort, MAX_WAYS_IN, ports.size()));
        break;
      }
      ports.add(
          new ServicePort(
              name,
              clusterIp,
              port.getPort(),
              nodePort,
              externalIps,
              loadBalancerIps,
              sourceRanges,
              restrictSources,
              sticky,
              internalLocal,
              externalLocal,
              healthCheckNodePort,
              spec.getTrafficDistribution(),
              origin,
              observesLocality,
              spillOver));
    }
    return ports;
  }

  /**
   * The ClientIP affinity timeout. Unset or not positive takes the API's default; above the API
   * server's limit of one day it is cut to one day, which both nft and iptables accept, so one
   * Service's value can never make the kernel refuse everyone's rules.
   */
  private static Duration stickyTimeoutOf(
      io.fabric8.kubernetes.api.model.SessionAffinityConfig config,
      ObjectKey key,
      List<String> warnings) {
    var seconds =
        config == null || config.getClientIP() == null
            ? null
            : config.getClientIP().getTimeoutSeconds();
    if (seconds == null || seconds <= 0) {
      return DEFAULT_STICKY_TIMEOUT;
    }
    if (seconds > MAX_STICKY_TIMEOUT.getSeconds()) {
      long max = MAX_STICKY_TIMEOUT.getSeconds();
      warnings.add(
          ("%s spec.sessionAffinityConfig.clientIP.timeoutSeconds: %s is above the API's limit"
                  + " of %s; %s used")
              .formatted(key, seconds, max, max));
      return MAX_STICKY_TIMEOUT;
    }
    return Duration.ofSeconds(seconds);
  }

  /**
   * This family's source ranges, canonical, outermost only, parsed and reduced once for all the
   * Service's ports. A range that cannot be read is left out, which only ever narrows who may
   * connect: the Service still restricts its sources.
   */
  private static SourceRanges sourceRangesOf(
      List<String> ranges,
      IpFamily family,
      ObjectKey key,
      boolean hasLoadBalancerIps,
      List<String> warnings) {
    if (ranges == null || ranges.isEmpty()) {
      return SourceRanges.NONE;
    }
    var parsed = new ArrayList<Cidr>(ranges.size());
    for (int i = 0; i < ranges.size(); i++) {
      var cidr = Cidr.parse(ranges.get(i));
      if (cidr == null) {
        warnings.add(
            "%s spec.loadBalancerSourceRanges[%s]: \"%s\" is not a CIDR; it allows no source"
                .formatted(key, i, ranges.get(i)));
      } else if (cidr.family() == family) {
        parsed.add(cidr);
      }
    }
    // Once per Service, shared by its ports: O(R log R), however many ports read it.
    var result = SourceRanges.outermostOf(parsed);
    if (result.size() > MAX_SOURCE_RANGES) {
      warnings.add(
          ("%s spec.loadBalancerSourceRanges: %s ranges, above the proxy's cap of %s; only the"
                  + " first %s admit sources")
              .formatted(key, result.size(), MAX_SOURCE_RANGES, MAX_SOURCE_RANGES));
      result = SourceRanges.outermostOf(result.cidrs().subList(0, MAX_SOURCE_RANGES));
    }
    if (result.isEmpty() && hasLoadBalancerIps) {
      warnings.add(
          ("%s spec.loadBalancerSourceRanges: no usable %s range; its %s load-balancer IPs accept"
                  + " no source (fail closed)")
              .formatted(key, family.apiName(), family.apiName()));
    }
    return result;
  }

  private static ServiceOrigin originOf(Service service) {
    var metadata = service.getMetadata();
    Instant created = null;
    if (metadata.getCreationTimestamp() != null) {
      try {
        created = Instant.parse(metadata.getCreationTimestamp());
      } catch (DateTimeParseException unreadable) {
        // Left unknown, which sorts last: an unreadable timestamp never wins an address.
      }
    }
    return new ServiceOrigin(created, metadata.getUid());
  }

  /**
   * False only when {@link #clusterIpOf} finds no address of {@code family}, decided without
   * parsing: an address is read as IPv6 exactly when it has a colon ({@link IpAddress#parse}).
   */
  static boolean mayHaveClusterIpOf(ServiceSpec spec, IpFamily family) {
    return clusterIpCandidates(spec).stream()
        .anyMatch(ip -> ip != null && (ip.indexOf(':') >= 0) == (family == IpFamily.IPV6));
  }

  private static String clusterIpOf(ServiceSpec spec, IpFamily family) {
    for (var candidate : clusterIpCandidates(spec)) {
      var address = IpAddress.parse(candidate);
      if (address != null && address.family() == family) {
        return address.toString();
      }
    }
    return null;
  }

  /** {@code spec.clusterIPs}, or {@code spec.clusterIP} alone when that list is empty. */
  private static List<String> clusterIpCandidates(ServiceSpec spec) {
    var clusterIps = spec.getClusterIPs();
    if (clusterIps != null && !clusterIps.isEmpty()) {
      return clusterIps;
    }
    return spec.getClusterIP() == null ? List.of() : List.of(spec.getClusterIP());
  }

  /**
   * The addresses of this family, canonical and once each. Addresses no Service may claim
   * (loopback, link-local such as the cloud metadata address, unspecified, multicast, broadcast)
   * are left out with a warning naming the Service.
   */
  private static List<String> addressesOf(
      List<String> addresses, IpFamily family, String where, List<String> warnings) {
    var result = new LinkedHashSet<String>();
    if (addresses == null) {
      return List.of();
    }
    for (var raw : addresses) {
      var address = IpAddress.parse(raw);
      if (address == null) {
        warnings.add(where + ": \"" + raw + "\" is not an IP address; ignored");
      } else if (address.special() != null) {
        warnings.add(where + ": " + address + " is a " + address.special() + " address; ignored");
      } else if (address.family() == family) {
        result.add(address.toString());
      }
    }
    return List.copyOf(result);
  }

  static Protocol protocolOf(String protocol) {
    if (protocol == null) {
      return Protocol.TCP;
    }
    return switch (protocol) {
      case "TCP" -> Protocol.TCP;
      case "UDP" -> Protocol.UDP;
      case "SCTP" -> Protocol.SCTP;
      default -> null;
    };
  }

  /** Collects one Service port's endpoints from its slices, as kube-proxy's slice cache does. */
  static List<Endpoint> endpointsOf(
      ServicePortName port, List<EndpointSlice> slices, Options options, List<String> warnings) {
    var byAddress = new HashMap<String, Endpoint>();
    var ordered = new ArrayList<>(slices);
    ordered.sort(Comparator.comparing(slice -> slice.getMetadata().getName()));
    for (var slice : ordered) {
      if (slice.getPorts() == null || slice.getEndpoints() == null) {
        continue;
      }
      var where =
          "EndpointSlice "
              + slice.getMetadata().getNamespace()
              + "/"
              + slice.getMetadata().getName();
      for (int p = 0; p < slice.getPorts().size(); p++) {
        var slicePort = slice.getPorts().get(p);
        if (slicePort == null) {
          warnings.add(where + " ports[" + p + "]: null; ignored");
          continue;
        }
        var name = slicePort.getName() == null ? "" : slicePort.getName();
        if (!name.equals(port.port()) || protocolOf(slicePort.getProtocol()) != port.protocol()) {
          continue;
        }
        if (slicePort.getPort() == null || slicePort.getPort() < 1 || slicePort.getPort() > 65535) {
          warnings.add(
              "%s port \"%s\": %s is out of range 1-65535; ignored"
                  .formatted(where, name, slicePort.getPort()));
          continue;
        }
        for (int e = 0; e < slice.getEndpoints().size(); e++) {
          var parsed =
              endpointOf(
                  slice.getEndpoints().get(e),
                  slicePort.getPort(),
                  where + " endpoints[" + e + "]",
                  options,
                  warnings);
          if (parsed == null) {
            continue;
          }
          // The same address in two slices counts once; a non-terminating copy wins, as upstream.
          byAddress.merge(
              parsed.address(),
              parsed,
              (kept, other) -> kept.terminating() && !other.terminating() ? other : kept);
        }
      }
    }
    var result = new ArrayList<>(byAddress.values());
    result.sort(Comparator.comparing(Endpoint::ip).thenComparingInt(Endpoint::port));
    return result;
  }

  /** One endpoint, or null (with a warning naming the field) when it cannot be used. */
  private static Endpoint endpointOf(
      io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint,
      int port,
      String where,
      Options options,
      List<String> warnings) {
    if (endpoint == null) {
      warnings.add(where + ": null; ignored");
      return null;
    }
    if (endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()) {
      return null;
    }
    var raw = endpoint.getAddresses().get(0);
    var address = IpAddress.parse(raw);
    if (address == null || address.family() != options.family()) {
      warnings.add(
          where
              + ".addresses[0]: \""
              + raw
              + "\" is not an "
              + options.family().apiName()
              + " address; endpoint ignored");
      return null;
    }
    if (address.special() != null) {
      warnings.add(
          where
              + ".addresses[0]: "
              + address
              + " is a "
              + address.special()
              + " address, never a Service endpoint; endpoint ignored");
      return null;
    }
    var conditions = endpoint.getConditions();
    boolean ready = conditions == null || conditions.getReady() == null || conditions.getReady();
    boolean serving =
        conditions == null || conditions.getServing() == null || conditions.getServing();
    boolean terminating = conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
    var nodeName = endpoint.getNodeName();
    var hints = endpoint.getHints();
    boolean local =
        nodeName != null
            && options.nodeName() != null
            && !options.nodeName().isEmpty()
            && nodeName.equals(options.nodeName());
    return new Endpoint(
        address.toString(),
        port,
        ready,
        serving,
        terminating,
        nodeName,
        local,
        hints == null
            ? null
            : hintNames(
                hints.getForZones(),
                zone -> zone == null ? null : zone.getName(),
                where + ".hints.forZones",
                warnings),
        hints == null
            ? null
            : hintNames(
                hints.getForNodes(),
                node -> node == null ? null : node.getName(),
                where + ".hints.forNodes",
                warnings),
        Locality.of(local, endpoint.getZone(), options.nodeZone()));
  }

  /** The names of a hint list; an entry without a name is ignored with a warning. */
  private static <T> Set<String> hintNames(
      List<T> hints, Function<T, String> name, String where, List<String> warnings) {
    if (hints == null) {
      return null;
    }
    var names = new HashSet<String>();
    for (int i = 0; i < hints.size(); i++) {
      var value = name.apply(hints.get(i));
      if (value == null || value.isEmpty()) {
        warnings.add(where + "[" + i + "].name: missing; hint ignored");
      } else {
        names.add(value);
      }
    }
    return names;
  }
}
