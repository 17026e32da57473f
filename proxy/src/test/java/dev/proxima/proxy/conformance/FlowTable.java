package dev.proxima.proxy.conformance;

import dev.proxima.proxy.model.ProxyMode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The packet-flow table in {@code conformance/upstream-packet-flows.yaml}: upstream kube-proxy's
 * expectations as data, with Proxima's declared differences. The file's header describes the
 * format. SnakeYAML reads it because the table shares objects between scenarios with anchors and
 * merge keys.
 */
record FlowTable(Node node, Settings settings, List<Scenario> scenarios) {
  static final String RESOURCE = "/conformance/upstream-packet-flows.yaml";

  record Node(String name, List<String> addresses) {}

  /**
   * The rule options of a scenario. {@code detectLocalMode} null leaves {@code --detect-local-mode}
   * at its default; {@code nodePodCidrs} are the Node's spec.podCIDRs in the state file.
   */
  record Settings(
      List<String> clusterCidrs,
      List<String> nodePortAddresses,
      boolean masqueradeAll,
      String detectLocalMode,
      String podBridgeInterface,
      String podInterfaceNamePrefix,
      List<String> nodePodCidrs,
      List<String> serviceCidrs) {
    static final Settings NONE =
        new Settings(List.of(), List.of(), false, null, null, null, List.of(), List.of());

    Settings with(Map<String, Object> changes) {
      if (changes == null) {
        return this;
      }
      return new Settings(
          changes.containsKey("clusterCidrs") ? strings(changes.get("clusterCidrs")) : clusterCidrs,
          changes.containsKey("nodePortAddresses")
              ? strings(changes.get("nodePortAddresses"))
              : nodePortAddresses,
          changes.containsKey("masqueradeAll")
              ? (Boolean) changes.get("masqueradeAll")
              : masqueradeAll,
          (String) changes.getOrDefault("detectLocalMode", detectLocalMode),
          (String) changes.getOrDefault("podBridgeInterface", podBridgeInterface),
          (String) changes.getOrDefault("podInterfaceNamePrefix", podInterfaceNamePrefix),
          changes.containsKey("nodePodCidrs") ? strings(changes.get("nodePodCidrs")) : nodePodCidrs,
          changes.containsKey("serviceCidrs")
              ? strings(changes.get("serviceCidrs"))
              : serviceCidrs);
    }
  }

  /**
   * One ruleset and the flows through it. {@code services} are the file's Service entries as read
   * (see {@link ScenarioObjects}).
   */
  record Scenario(
      String name,
      String upstream,
      Settings settings,
      List<Map<String, Object>> services,
      List<FlowCase> cases) {
    /** Every endpoint address the scenario's slices name, whether or not it should be used. */
    Set<String> endpointAddresses() {
      var addresses = new LinkedHashSet<String>();
      for (var service : services) {
        for (var endpoint : ScenarioObjects.endpoints(service)) {
          addresses.add((String) endpoint.get("ip"));
        }
      }
      return addresses;
    }

    /** The scenario's IP family: its ClusterIPs are all of one. */
    boolean ipv6() {
      return services.stream().anyMatch(service -> isIpv6((String) service.get("clusterIP")));
    }

    /** protocol port pairs the scenario's endpoints serve on. */
    Set<String> endpointPorts() {
      var ports = new LinkedHashSet<String>();
      for (var service : services) {
        for (var port : ScenarioObjects.slicePorts(service)) {
          ports.add(
              String.valueOf(port.getOrDefault("protocol", "TCP")).toLowerCase(Locale.ROOT)
                  + " "
                  + port.get("port"));
        }
      }
      return ports;
    }
  }

  enum Kind {
    ENDPOINTS,
    DROP,
    REJECT,
    HOST,
    PASS;

    static Kind of(String text) {
      return valueOf(text.toUpperCase(Locale.ROOT));
    }
  }

  /** What a flow becomes. {@code endpoints} and {@code masq} only mean something for ENDPOINTS. */
  record Outcome(Kind kind, Set<String> endpoints, boolean masq) {
    static Outcome of(Object expect, Object masq) {
      if (expect instanceof List<?> list) {
        var endpoints = new LinkedHashSet<String>();
        list.forEach(e -> endpoints.add(endpoint(String.valueOf(e))));
        return new Outcome(Kind.ENDPOINTS, endpoints, Boolean.TRUE.equals(masq));
      }
      return new Outcome(Kind.of(String.valueOf(expect)), Set.of(), false);
    }

    Outcome with(Map<String, Object> changes) {
      var expect = changes.containsKey("expect") ? changes.get("expect") : describeExpect();
      var masquerade = changes.containsKey("masq") ? changes.get("masq") : (Object) masq;
      return of(expect, masquerade);
    }

    private Object describeExpect() {
      return kind == Kind.ENDPOINTS ? List.copyOf(endpoints) : kind.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
      return kind == Kind.ENDPOINTS
          ? endpoints + (masq ? " masqueraded" : " unmasqueraded")
          : kind.name().toLowerCase(Locale.ROOT);
    }
  }

  /** Where Proxima differs from upstream in one mode, and why. */
  record Difference(Outcome outcome, String reason) {}

  record FlowCase(
      String name,
      String from,
      String to,
      int port,
      String protocol,
      Outcome upstream,
      Map<ProxyMode, Difference> proxima) {
    /** What this mode of Proxima must do: upstream's outcome unless a difference is declared. */
    Outcome expected(ProxyMode mode) {
      var difference = proxima.get(mode);
      return difference == null ? upstream : difference.outcome();
    }
  }

  static FlowTable load() {
    try (InputStream in = FlowTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the test classpath");
      }
      Map<String, Object> root = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
      return parse(root);
    } catch (IOException unreadable) {
      throw new IllegalStateException("cannot read " + RESOURCE, unreadable);
    }
  }

  @SuppressWarnings("unchecked")
  static FlowTable parse(Map<String, Object> root) {
    var nodeMap = (Map<String, Object>) root.get("node");
    var node = new Node((String) nodeMap.get("name"), strings(nodeMap.get("addresses")));
    var defaults = Settings.NONE.with(map(root.get("settings")));
    var scenarios = new ArrayList<Scenario>();
    for (var entry : (List<Map<String, Object>>) root.get("scenarios")) {
      var name = (String) entry.get("name");
      var upstream = (String) entry.get("upstream");
      var settings = defaults.with(map(entry.get("settings")));
      var services = (List<Map<String, Object>>) entry.get("services");
      var cases = new ArrayList<FlowCase>();
      for (var flow : (List<Map<String, Object>>) entry.get("cases")) {
        cases.add(flowCase(flow));
      }
      scenarios.add(new Scenario(name, upstream, settings, services, cases));
      for (var variant : (List<Map<String, Object>>) entry.getOrDefault("variants", List.of())) {
        var overrides = map(variant.get("overrides"));
        var unknown = new LinkedHashSet<>(overrides.keySet());
        var variantCases = new ArrayList<FlowCase>();
        for (var flow : cases) {
          var override = map(overrides.get(flow.name()));
          unknown.remove(flow.name());
          variantCases.add(
              override.isEmpty()
                  ? flow
                  : new FlowCase(
                      flow.name(),
                      flow.from(),
                      flow.to(),
                      flow.port(),
                      flow.protocol(),
                      flow.upstream().with(override),
                      override.containsKey("proxima")
                          ? differences(map(override.get("proxima")), flow.upstream())
                          : flow.proxima()));
        }
        if (!unknown.isEmpty()) {
          throw new IllegalStateException(
              name + ", " + variant.get("name") + ": overrides name no case: " + unknown);
        }
        scenarios.add(
            new Scenario(
                name + " (" + variant.get("name") + ")",
                upstream + " (" + variant.get("name") + ")",
                settings.with(map(variant.get("settings"))),
                services,
                variantCases));
      }
    }
    return new FlowTable(node, defaults, scenarios);
  }

  private static FlowCase flowCase(Map<String, Object> flow) {
    var upstream = Outcome.of(flow.get("expect"), flow.get("masq"));
    return new FlowCase(
        (String) flow.get("name"),
        (String) flow.get("from"),
        (String) flow.get("to"),
        ((Number) flow.get("port")).intValue(),
        String.valueOf(flow.getOrDefault("protocol", "TCP")).toLowerCase(Locale.ROOT),
        upstream,
        differences(map(flow.get("proxima")), upstream));
  }

  private static Map<ProxyMode, Difference> differences(
      Map<String, Object> proxima, Outcome upstream) {
    var differences = new EnumMap<ProxyMode, Difference>(ProxyMode.class);
    proxima.forEach(
        (mode, value) -> {
          var difference = map(value);
          var reason = (String) difference.get("reason");
          if (reason == null || reason.isBlank()) {
            throw new IllegalStateException("a difference in " + mode + " mode gives no reason");
          }
          differences.put(
              ProxyMode.valueOf(mode), new Difference(upstream.with(difference), reason));
        });
    return differences;
  }

  static boolean isIpv6(String ip) {
    return ip.contains(":");
  }

  /** The address as a host route: /32 or /128. */
  static String hostRoute(String ip) {
    return ip + (isIpv6(ip) ? "/128" : "/32");
  }

  /** One spelling of an address, so that {@code fd00::1} and {@code fd00:0:0:0:0:0:0:1} match. */
  static String address(String ip) {
    try {
      return InetAddress.getByName(ip).getHostAddress();
    } catch (UnknownHostException notALiteral) {
      throw new IllegalArgumentException(ip + " is not an IP address", notALiteral);
    }
  }

  /** One spelling of {@code ip:port} or {@code [ip]:port}. */
  static String endpoint(String hostPort) {
    var colon = hostPort.lastIndexOf(':');
    var host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    var ip = address(host);
    return (isIpv6(ip) ? "[" + ip + "]" : ip) + hostPort.substring(colon);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return value == null ? Map.of() : new LinkedHashMap<>((Map<String, Object>) value);
  }

  static List<String> strings(Object value) {
    if (value == null) {
      return List.of();
    }
    return ((List<?>) value).stream().map(String::valueOf).toList();
  }
}
