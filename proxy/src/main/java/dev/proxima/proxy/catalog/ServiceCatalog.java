package dev.proxima.proxy.catalog;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.IpLiteral;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;

/**
 * Turns Services and EndpointSlices into the proxy's per-family model: one entry per Service port
 * with its parsed endpoints. Pure; invalid input is skipped with a warning naming the object and
 * field, never thrown, so one bad object cannot stop a node's proxy.
 */
public final class ServiceCatalog {
  /** The default ClientIP affinity timeout, as the API defaults it. */
  static final Duration DEFAULT_STICKY_TIMEOUT = Duration.ofSeconds(10800);

  /**
   * @param serviceProxyName when set, only Services labelled
   *     service.kubernetes.io/service-proxy-name with this value are handled; null means only
   *     unlabelled Services are handled
   */
  public record Options(String nodeName, IpFamily family, String serviceProxyName) {
    public Options {
      Objects.requireNonNull(family, "family");
    }
  }

  /** One Service port and its endpoints for this family. */
  public record Entry(ServicePort port, List<Endpoint> endpoints) {
    public Entry {
      endpoints = List.copyOf(endpoints);
    }
  }

  /**
   * @param skipped Services deliberately not programmed, with the reason (headless, ExternalName,
   *     …)
   * @param warnings invalid fields that were ignored
   */
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
    var slicesByService = new HashMap<ObjectKey, List<EndpointSlice>>();
    for (var slice : slices) {
      var labels = slice.getMetadata().getLabels();
      var name = labels == null ? null : labels.get(Labels.SERVICE_NAME);
      if (name != null
          && !name.isEmpty()
          && options.family().apiName().equals(slice.getAddressType())) {
        slicesByService
            .computeIfAbsent(
                new ObjectKey(slice.getMetadata().getNamespace(), name), k -> new ArrayList<>())
            .add(slice);
      }
    }
    var entries = new ArrayList<Entry>();
    var skipped = new ArrayList<String>();
    var warnings = new ArrayList<String>();
    var ordered = new ArrayList<>(services);
    ordered.sort(Comparator.comparing(ServiceCatalog::keyOf));
    for (var service : ordered) {
      var key = keyOf(service);
      var reason = skipReason(service, options);
      if (reason != null) {
        skipped.add(key + ": " + reason);
        continue;
      }
      var ports = ServicePorts.of(service, options.family(), warnings);
      var serviceSlices = slicesByService.getOrDefault(key, List.of());
      for (var port : ports) {
        entries.add(
            new Entry(port, SliceEndpoints.collect(port.name(), serviceSlices, options, warnings)));
      }
    }
    entries.sort(Comparator.comparing(entry -> entry.port().name()));
    return new Result(entries, skipped, warnings);
  }

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

  /** Parses a Service's ports for one family. */
  static final class ServicePorts {
    private ServicePorts() {}

    static List<ServicePort> of(Service service, IpFamily family, List<String> warnings) {
      var key = keyOf(service);
      var spec = service.getSpec();
      var clusterIp = clusterIpOf(spec.getClusterIPs(), spec.getClusterIP(), family);
      if (clusterIp == null) {
        return List.of();
      }
      var externalIps =
          addressesOf(spec.getExternalIPs(), family, key + " spec.externalIPs", warnings);
      var loadBalancerIps = new ArrayList<String>();
      var status = service.getStatus();
      if (status != null
          && status.getLoadBalancer() != null
          && status.getLoadBalancer().getIngress() != null) {
        for (var ingress : status.getLoadBalancer().getIngress()) {
          var mode = ingress.getIpMode();
          if (ingress.getIp() != null
              && (mode == null || "VIP".equals(mode))
              && IpFamily.of(ingress.getIp()) == family) {
            loadBalancerIps.add(ingress.getIp());
          }
        }
      }
      var sourceRanges = new ArrayList<String>();
      if (spec.getLoadBalancerSourceRanges() != null) {
        for (var range : spec.getLoadBalancerSourceRanges()) {
          var rangeFamily = IpLiteral.familyOfCidr(range == null ? null : range.trim());
          if (rangeFamily == null) {
            warnings.add(
                key + " spec.loadBalancerSourceRanges: \"" + range + "\" is not a CIDR; ignored");
          } else if (rangeFamily == family) {
            sourceRanges.add(range.trim());
          }
        }
      }
      Duration sticky = null;
      if ("ClientIP".equals(spec.getSessionAffinity())) {
        var config = spec.getSessionAffinityConfig();
        var seconds =
            config == null || config.getClientIP() == null
                ? null
                : config.getClientIP().getTimeoutSeconds();
        sticky =
            seconds == null || seconds <= 0 ? DEFAULT_STICKY_TIMEOUT : Duration.ofSeconds(seconds);
      }
      boolean internalLocal = "Local".equals(spec.getInternalTrafficPolicy());
      boolean externalLocal = "Local".equals(spec.getExternalTrafficPolicy());
      int healthCheckNodePort =
          spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort();
      var ports = new ArrayList<ServicePort>();
      if (spec.getPorts() == null) {
        return ports;
      }
      for (int i = 0; i < spec.getPorts().size(); i++) {
        var port = spec.getPorts().get(i);
        var where = key + " spec.ports[" + i + "]";
        var protocol = protocolOf(port.getProtocol());
        if (protocol == null) {
          warnings.add(
              where
                  + ".protocol: \""
                  + port.getProtocol()
                  + "\" is not TCP, UDP or SCTP; port ignored");
          continue;
        }
        if (port.getPort() == null || port.getPort() < 1 || port.getPort() > 65535) {
          warnings.add(
              where + ".port: " + port.getPort() + " is out of range 1-65535; port ignored");
          continue;
        }
        int nodePort = port.getNodePort() == null ? 0 : port.getNodePort();
        if (nodePort < 0 || nodePort > 65535) {
          warnings.add(where + ".nodePort: " + nodePort + " is out of range; NodePort ignored");
          nodePort = 0;
        }
        var name = new ServicePortName(key, port.getName() == null ? "" : port.getName(), protocol);
        ports.add(
            new ServicePort(
                name,
                clusterIp,
                port.getPort(),
                nodePort,
                externalIps,
                loadBalancerIps,
                sourceRanges,
                sticky,
                internalLocal,
                externalLocal,
                healthCheckNodePort,
                spec.getTrafficDistribution()));
      }
      return ports;
    }

    private static String clusterIpOf(List<String> clusterIps, String clusterIp, IpFamily family) {
      var candidates = new ArrayList<String>();
      if (clusterIps != null) {
        candidates.addAll(clusterIps);
      }
      if (candidates.isEmpty() && clusterIp != null) {
        candidates.add(clusterIp);
      }
      return candidates.stream().filter(ip -> IpFamily.of(ip) == family).findFirst().orElse(null);
    }

    private static List<String> addressesOf(
        List<String> addresses, IpFamily family, String where, List<String> warnings) {
      var result = new ArrayList<String>();
      if (addresses == null) {
        return result;
      }
      for (var address : addresses) {
        var addressFamily = IpFamily.of(address);
        if (addressFamily == null) {
          warnings.add(where + ": \"" + address + "\" is not an IP address; ignored");
        } else if (addressFamily == family) {
          result.add(address);
        }
      }
      return result;
    }
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
  static final class SliceEndpoints {
    private SliceEndpoints() {}

    static List<Endpoint> collect(
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
        for (var slicePort : slice.getPorts()) {
          var name = slicePort.getName() == null ? "" : slicePort.getName();
          if (!name.equals(port.port()) || protocolOf(slicePort.getProtocol()) != port.protocol()) {
            continue;
          }
          if (slicePort.getPort() == null
              || slicePort.getPort() < 1
              || slicePort.getPort() > 65535) {
            warnings.add(
                where
                    + " port \""
                    + name
                    + "\": "
                    + slicePort.getPort()
                    + " is out of range 1-65535; ignored");
            continue;
          }
          for (var endpoint : slice.getEndpoints()) {
            if (endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()) {
              continue;
            }
            var ip = endpoint.getAddresses().get(0);
            if (IpFamily.of(ip) != options.family()) {
              warnings.add(
                  where
                      + ": \""
                      + ip
                      + "\" is not an "
                      + options.family().apiName()
                      + " address; endpoint ignored");
              continue;
            }
            var conditions = endpoint.getConditions();
            boolean ready =
                conditions == null || conditions.getReady() == null || conditions.getReady();
            boolean serving =
                conditions == null || conditions.getServing() == null || conditions.getServing();
            boolean terminating =
                conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
            var nodeName = endpoint.getNodeName();
            var hints = endpoint.getHints();
            var parsed =
                new Endpoint(
                    ip,
                    slicePort.getPort(),
                    ready,
                    serving,
                    terminating,
                    nodeName,
                    nodeName != null
                        && options.nodeName() != null
                        && !options.nodeName().isEmpty()
                        && nodeName.equals(options.nodeName()),
                    hints == null || hints.getForZones() == null
                        ? null
                        : hints.getForZones().stream()
                            .map(zone -> zone.getName())
                            .collect(java.util.stream.Collectors.toSet()),
                    hints == null || hints.getForNodes() == null
                        ? null
                        : hints.getForNodes().stream()
                            .map(node -> node.getName())
                            .collect(java.util.stream.Collectors.toSet()));
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
  }
}
